// The desktop shell's confirmation: a native, window-modal message box the renderer
// cannot see into or click for the operator. Cancel is the default and the escape
// answer, so Enter or Esc never confirm by accident. What is asked comes from main
// (src/main/confirmations.ts, src/main/security-switches.ts).
import { dialog, type BrowserWindow, type MessageBoxOptions } from 'electron'
import type { ConfirmationPrompt } from '../confirmations'

export function confirmDialogOptions(p: ConfirmationPrompt): MessageBoxOptions {
  return {
    type: 'warning',
    title: p.title,
    message: p.message,
    detail: p.detail,
    buttons: ['Cancel', p.confirmLabel],
    defaultId: 0,
    cancelId: 0,
    noLink: true
  }
}

/** True only when the operator pressed the confirming button. */
export async function confirmWithDialog(parent: BrowserWindow | null, p: ConfirmationPrompt): Promise<boolean> {
  const options = confirmDialogOptions(p)
  const r = parent ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options)
  return r.response === 1
}
