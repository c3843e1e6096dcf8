// Copying a text to the clipboard from the page: navigator.clipboard where the page may use
// it, else a selected hidden textarea and execCommand (navigator.clipboard needs a secure
// context and focus; an http://<name>.localhost page of the web harness may not have them).

/** Whether the text reached the clipboard. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    return fallbackCopy(text)
  }
}

function fallbackCopy(t: string): boolean {
  const ta = document.createElement('textarea')
  ta.value = t
  ta.setAttribute('readonly', '')
  ta.className = 'sr-only'
  document.body.appendChild(ta)
  ta.select()
  let ok = false
  try {
    ok = document.execCommand('copy')
  } catch {
    ok = false
  }
  ta.remove()
  return ok
}
