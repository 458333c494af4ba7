import { contactsIn } from "/work/wt/c25/server/moderation/spam/contacts.ts";
import { siteLists } from "/work/wt/c25/server/moderation/site-lists.ts";
console.log(contactsIn("I'm fifteen and I want to be an aerospace engineer. What should I learn first?"));
console.log(siteLists.bareTlds.slice(0,5), siteLists.referenceSites.slice(-3));
