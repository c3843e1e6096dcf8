// What the channel handlers get from the services: the active session (waited for across
// a profile switch), the app-wide stores, the shell, the audit log and the event bus. It
// is defined once here; each handler module takes the few members it uses (a Pick of it),
// so what a namespace depends on is written in its signature.
import type { AppSettings } from '../app-settings'
import type { LastLooked } from '../activity/last-looked'
import type { ProfileSession } from '../profile-session'
import type { ProfileStore } from '../profiles/profile-store'
import type { SecretStore } from '../secrets/secret-store'
import type { TeamCredentials } from '../team/team-credentials'
import type { Dispatcher } from 'undici'
import type { AuditAction } from '../store/audit-log-repo'
import type { OrderNotification } from '../notification-policy'
import type { Confirm, ConfirmationPrompt, TypedConfirmations } from '../confirmations'
import type {
  ChannelName,
  ContractHandlers,
  EventName,
  EventPayload,
  OrderRef,
  Profile,
  ShellKind,
  TickerView
} from '../../shared/ipc/contract'

/** What the services need from the shell they run in (Electron or the browser harness). */
export interface ShellPort {
  openExternal(url: string): Promise<void>
  showMain(order?: OrderRef): void
  notify(n: OrderNotification): void
  setStartAtLogin(enabled: boolean): Promise<void>
  /** Opens a folder in the system's file manager; false where the shell cannot (the browser harness). */
  openPath(path: string): Promise<boolean>
  /** Shows a file selected in the system's file manager; false where the shell cannot (the browser harness). */
  showInFolder(path: string): Promise<boolean>
  /** The OS locale (Electron's app.getLocale()); absent where the window knows its own (the browser). */
  locale?(): string
  /** Asks the operator outside the window's reach (a native dialog, or a typed one-time code). */
  confirm: Confirm
}

/**
 * The shell of the browser harness and of tests: links are recorded (there is no system
 * browser to hand them to), notifications go to the windows as notify:order (the page
 * shows them with the browser's Notification API), the rest does nothing.
 */
export function headlessShell(openedUrls: string[], confirm: Confirm, emit: HandlerContext['emit']): ShellPort {
  return {
    openExternal: async (url) => void openedUrls.push(url),
    showMain: () => undefined,
    notify: (n) => emit('notify:order', n.order ? { title: n.title, body: n.body, order: n.order } : { title: n.title, body: n.body }),
    setStartAtLogin: async () => undefined,
    openPath: async () => false,
    showInFolder: async () => false,
    confirm
  }
}

export interface HandlerContext {
  /** Waits for any profile switch in progress, then returns the active session. */
  ready(): Promise<ProfileSession>
  activeProfile(): Profile
  /** Closes the active session and opens the profile's (one switch at a time). */
  switchTo(id: string): Promise<Profile>
  /** The API secret a profile signs with (the simulator's own for the sandbox profile). */
  secretFor(profile: Profile): Promise<string>
  profiles: ProfileStore
  secrets: SecretStore
  settings: AppSettings
  shell: ShellPort
  /** Appends to the active profile's audit log (nothing while no session is open). */
  audit(action: AuditAction, detail?: Record<string, unknown>): void
  /** Asks the operator through the shell and logs the answer; throws NotConfirmedError unless confirmed. */
  requireConfirmation(prompt: ConfirmationPrompt): Promise<void>
  /** Typed confirmations pending in a shell without a native dialog. */
  confirmations: Pick<TypedConfirmations, 'answer'>
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void
  /** Windows that show tickers, kept across profile switches. */
  tickerViews: Set<TickerView>
  now(): number
  version: string
  shellKind: ShellKind
  /** Where CSV exports are written. */
  exportDir: string
  /** Where the support log is written. */
  logDir: string
  /** When the operator last looked at each profile (the summary of what changed since). */
  lastLooked: LastLooked
  /**
   * Team profiles' credentials, and where a sign-in through the hub's identity provider comes
   * back to: null in the desktop (a loopback listener of its own), the harness's /oidc/done.
   */
  teamSignIn: { credentials: TeamCredentials; redirectUri(): string | null; dispatcher?: Dispatcher }
}

/** The handlers of the channels named `<namespace>:…`: one missing is a type error. */
export type HandlerSlice<Namespace extends string> = Pick<ContractHandlers, Extract<ChannelName, `${Namespace}:${string}`>>
