/** The site's name; a module of its own so that build scripts can import it. */
export const siteName = "Engage with Engineer";
