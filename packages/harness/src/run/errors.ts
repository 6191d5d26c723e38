// The two ways a command line is refused before anything starts, both exit 2 with one line:
// a leaf module, so the forms, the table and the rules that throw them import nothing else.

/** A command line that cannot be read or does not hold together: exit 2, with a pointer to --help. */
export class UsageError extends Error {}

/** What the environment refuses (a missing tool, an unusable folder, a limit): exit 2, one line. */
export class EnvironmentError extends Error {}
