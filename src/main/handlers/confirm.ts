// confirm:* — the window's answer to a pending typed confirmation (the browser harness's
// one-time code). The desktop shell confirms with a native dialog and never has one pending.
import type { HandlerContext, HandlerSlice } from './context'

export function confirmHandlers(c: Pick<HandlerContext, 'confirmations'>): HandlerSlice<'confirm'> {
  return {
    'confirm:answer': async ({ id, code }) => c.confirmations.answer(id, code)
  }
}
