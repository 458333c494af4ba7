import { renderEdition } from "../server/newsletter/editions.ts";
console.log(renderEdition("S", "Hello <b>x</b>", "https://ewe.test").html);
