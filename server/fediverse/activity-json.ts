/*
 * Whether a request asks for ActivityPub JSON rather than a page: such a
 * request is the Fediverse's (routes.ts), never the built pages' fast path.
 */
const activityTypes = /application\/(activity\+json|ld\+json)/;

export function wantsActivityPub(accept: string | undefined): boolean {
  return accept !== undefined && activityTypes.test(accept);
}
