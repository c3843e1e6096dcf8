// What makes a view unreadable at the window's real sizes, found in the page as it is
// drawn: text spilling out of its box (or cut off without an ellipsis), boxes drawn over
// one another, a table column narrower than 40 px, and anything scrolling sideways (the
// page, the content pane or a table). Each problem comes back as one line naming the
// elements, so a failing check says what to fix.
import type { Page } from '@playwright/test'

/** The narrowest a table column may be and still show a value. */
export const MIN_COLUMN_PX = 40

/**
 * The check, run in the page. Plain JavaScript in a string: the Node side of the tests is
 * compiled without the DOM's types.
 */
const CHECK = `(minColumn) => {
    const problems = []
    const name = (el) => {
      const h = el
      const id = h.id ? \`#\${h.id}\` : ''
      const testId = h.dataset?.testid ? \`[data-testid=\${h.dataset.testid}]\` : ''
      const cls = typeof h.className === 'string' && h.className.trim() ? \`.\${h.className.trim().split(/\\s+/).slice(0, 2).join('.')}\` : ''
      const text = (h.innerText ?? h.textContent ?? '').trim().replace(/\\s+/g, ' ').slice(0, 40)
      return \`\${el.tagName.toLowerCase()}\${id}\${testId}\${cls}\${text ? \` "\${text}"\` : ''}\`
    }
    const style = (el) => getComputedStyle(el)
    const clips = (s) => s.overflowX !== 'visible' || s.overflowY !== 'visible'
    /** What of the element can be seen: its box cut by every ancestor that clips; null when nothing. */
    const visible = (el) => {
      let r = el.getBoundingClientRect()
      if (r.width < 1 || r.height < 1) return null
      let left = r.left
      let top = r.top
      let right = r.right
      let bottom = r.bottom
      for (let a = el.parentElement; a; a = a.parentElement) {
        if (!clips(style(a))) continue
        const c = a.getBoundingClientRect()
        left = Math.max(left, c.left)
        top = Math.max(top, c.top)
        right = Math.min(right, c.right)
        bottom = Math.min(bottom, c.bottom)
        if (right - left < 1 || bottom - top < 1) return null
      }
      r = new DOMRect(left, top, right - left, bottom - top)
      return r
    }
    const shown = (el) => {
      const s = style(el)
      if (s.visibility === 'hidden' || s.display === 'none' || Number(s.opacity) === 0) return false
      // Visually hidden text for screen readers.
      if (s.position === 'absolute' && (s.clip === 'rect(0px, 0px, 0px, 0px)' || el.classList.contains('sr-only'))) return false
      return true
    }
    const all = [...document.querySelectorAll('body *')].filter((el) => !el.closest('svg') || el.tagName === 'svg')

    // 1. Nothing scrolls sideways: the page, and no element that scrolls.
    const doc = document.scrollingElement ?? document.documentElement
    if (doc.scrollWidth > doc.clientWidth + 1) problems.push(\`the page scrolls sideways (\${doc.scrollWidth} px in \${doc.clientWidth})\`)
    for (const el of all) {
      const s = style(el)
      if ((s.overflowX === 'auto' || s.overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1 && shown(el))
        problems.push(\`\${name(el)} scrolls sideways (\${el.scrollWidth} px in \${el.clientWidth})\`)
    }

    /** The part of a rect that can be seen inside the element's clipping ancestors; null when none. */
    const clipTo = (r, el) => {
      const v = visible(el)
      if (!v) return null
      const left = Math.max(r.left, v.left)
      const top = Math.max(r.top, v.top)
      const right = Math.min(r.right, v.right)
      const bottom = Math.min(r.bottom, v.bottom)
      return right - left < 1 || bottom - top < 1 ? null : new DOMRect(left, top, right - left, bottom - top)
    }

    // 2. Text stays in its box: text nodes measured against the element that holds them.
    // What is drawn: the lines of each text (not the box of an inline element that wraps).
    const drawn = []
    for (const el of all) {
      if (!shown(el)) continue
      const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '')
      if (!own.length) continue
      const box = el.getBoundingClientRect()
      if (box.width < 1 || box.height < 1) continue
      const range = document.createRange()
      const s = style(el)
      const rects = []
      let flagged = false
      for (const n of own) {
        range.selectNodeContents(n)
        for (const t of range.getClientRects()) {
          if (t.width < 1) continue
          const c = clipTo(t, el)
          if (c) rects.push(c)
          if (flagged) continue
          const beyond = t.right - box.right > 1.5 || box.left - t.left > 1.5
          if (!beyond) continue
          flagged = true
          if (clips(s)) {
            if (s.textOverflow !== 'ellipsis') problems.push(\`\${name(el)}: text cut off at the edge of its box, with no ellipsis\`)
          } else {
            // Spilling: drawn beyond the box, unless an ancestor clips it at the box's edge.
            const v = visible(el)
            if (v && (t.right > v.right + 1.5 || t.left < v.left - 1.5 || Math.min(t.right, v.right) > box.right + 1.5))
              problems.push(\`\${name(el)}: text spills out of its box (\${Math.round(t.right - box.right)} px)\`)
          }
        }
      }
      if (rects.length) drawn.push({ el, rects })
    }

    // 3. Nothing drawn over another thing: the lines of text, and the controls.
    for (const el of all) {
      if (!el.matches('button, input, select, textarea, meter, progress, [role=tab]') || !shown(el)) continue
      const v = visible(el)
      if (v && !drawn.some((b) => b.el === el)) drawn.push({ el, rects: [v] })
    }
    const reported = new Set()
    for (let i = 0; i < drawn.length; i++) {
      for (let j = i + 1; j < drawn.length; j++) {
        const a = drawn[i]
        const b = drawn[j]
        if (a.el.contains(b.el) || b.el.contains(a.el)) continue
        // A dialog or a sticky header drawn over what scrolls beneath it is meant to be there.
        const over = (x) => x.closest('dialog[open], thead, [data-overlay]')
        if (over(a.el) !== over(b.el)) continue
        let hit = null
        for (const ra of a.rects) {
          for (const rb of b.rects) {
            const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left)
            const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top)
            if (w > 1.5 && h > 1.5) hit = [w, h]
          }
        }
        if (!hit) continue
        const key = \`\${name(a.el)} / \${name(b.el)}\`
        if (reported.has(key)) continue
        reported.add(key)
        problems.push(\`\${name(a.el)} and \${name(b.el)} overlap (\${Math.round(hit[0])}x\${Math.round(hit[1])} px)\`)
      }
    }

    // 4. Every table column at least 40 px wide: the header row's cells.
    for (const table of document.querySelectorAll('table')) {
      if (!shown(table) || !visible(table)) continue
      const head = table.querySelector('thead tr') ?? table.querySelector('tr')
      for (const cell of head?.children ?? []) {
        const w = cell.getBoundingClientRect().width
        if (w < minColumn) problems.push(\`\${name(table)}: column \${name(cell)} is \${Math.round(w)} px wide\`)
      }
    }
    return problems
}`

/** The problems of the page as it is drawn now (none: an empty list). */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(${CHECK})(${MIN_COLUMN_PX})`)
}
