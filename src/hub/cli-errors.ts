// What the hub's command line tells apart when something is wrong (both exit 2):
//   - UsageError: the command line itself is wrong; the usage is printed after the message;
//   - InputError: what it names is not right (a file that cannot be read, a directory that
//     is not empty, a backup that is not one); the message alone says what to do.
export class UsageError extends Error {}

export class InputError extends Error {}
