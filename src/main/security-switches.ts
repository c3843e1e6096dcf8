// The settings that weaken security, and how each is put to the operator: secrets allowed
// in plain text, and the webhook inbox listening beyond this computer. A change that turns
// one on (or moves an exposed inbox to another address) is confirmed in main before it is
// saved, whatever the window says; turning one off never needs confirming.
import type { Settings } from '../shared/ipc/contract'
import { isLoopbackHost } from '../shared/loopback'
import type { ConfirmationPrompt } from './confirmations'

const exposedInbox = (s: Settings): boolean => s.inbox.enabled && !isLoopbackHost(s.inbox.host)

/** The confirmations `next` needs over `before`, in the order they are asked. */
export function weakeningPrompts(before: Settings, next: Settings): ConfirmationPrompt[] {
  const prompts: ConfirmationPrompt[] = []
  if (next.allowPlaintextSecrets && !before.allowPlaintextSecrets) {
    prompts.push({
      change: 'allowPlaintextSecrets',
      title: 'Allow API secrets stored in plain text',
      message:
        "When no keychain answers and Electron's safe storage has only its basic_text backend, API secrets will be written to disk in a form anyone who can read your files can decode.",
      detail:
        'Prefer unlocking the OS keychain (on Linux, a Secret Service such as gnome-keyring). Secrets already stored stay where they are; this can be turned off again at any time.',
      confirmLabel: 'Allow plain text'
    })
  }
  if (exposedInbox(next) && (!exposedInbox(before) || next.inbox.host !== before.inbox.host)) {
    const port = next.inbox.port === 0 ? 'a free port' : `port ${next.inbox.port}`
    prompts.push({
      change: 'inboxBeyondLoopback',
      title: 'Open the webhook inbox beyond this computer',
      message: `The webhook inbox will listen on ${next.inbox.host}, ${port}: other machines on the network can send it requests.`,
      detail:
        'Deliveries are still verified with the API secret, but anything that reaches the port can load it. Prefer 127.0.0.1 behind a tunnel or a reverse proxy you control.',
      confirmLabel: 'Listen beyond this computer'
    })
  }
  return prompts
}
