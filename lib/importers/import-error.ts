/** The one error an import gives for a file it cannot read (its message is shown to the user). */
export class ImportError extends Error {}
