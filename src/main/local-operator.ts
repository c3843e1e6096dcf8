// Who acts on a live profile without a hub: the desktop has no operator accounts, so the
// name its claims and notes carry is the user signed in to the computer.
import { userInfo } from 'node:os'

export function localOperator(): string {
  try {
    return userInfo().username || 'this desktop'
  } catch {
    // No entry for the user in the system's user database (some containers).
    return 'this desktop'
  }
}
