/** A replay that cannot be made as asked (a bad override, a fork target that is not there). */
export class ReplayError extends Error {}
