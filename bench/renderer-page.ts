// The renderer bench's instrumentation of the page (bench/renderer.ts), installed before
// the renderer's own scripts: plain JavaScript (the page's DOM code lives here, the Node
// side only calls window.__bench).
export const INIT_SCRIPT = `(() => {
  const b = (window.__bench = { firstRowPaintedAt: null, queries: [], lastKey: 0 })
  // Every query's resource timing is kept (the default buffer holds 250), to split its wire.
  performance.setResourceTimingBufferSize(1000000)
  const afterFrame = () => new Promise((resolve) => requestAnimationFrame(() => {
    const ch = new MessageChannel()
    ch.port1.onmessage = () => resolve(performance.now())
    ch.port2.postMessage(0)
  }))
  // The same key as filterKey() on the Node side: the filter's fields in name order.
  const keyOf = (f) => JSON.stringify(Object.keys(f).sort().map((k) => [k, f[k]]))
  // The harness's bridge posts with XMLHttpRequest: a query is timed from send() to its
  // whole answer (load), and its answer kept (total, first row) for the frame check. The
  // load listener is added in open(), before the bridge sets its onload, so it runs first:
  // respAt is the answer's arrival, before the page parses it and draws the rows (which
  // are the render's). A message it posts runs once that load task and its microtasks (the
  // page's parse and DOM update) are done: scriptEndAt. The harness says in Server-Timing
  // how long the channel took (app) and its own part around it (harness).
  const open0 = XMLHttpRequest.prototype.open
  const send0 = XMLHttpRequest.prototype.send
  const dur = (timing, name) => {
    const m = new RegExp(name + ';dur=([0-9.]+)').exec(timing || '')
    return m ? Number(m[1]) : null
  }
  XMLHttpRequest.prototype.open = function (method, url) {
    this.__query = String(url).includes('/rpc/orders:query')
    if (this.__query)
      this.addEventListener('load', () => {
        const q = this.__q
        if (!q) return
        q.respAt = performance.now()
        const timing = this.getResponseHeader('Server-Timing')
        q.appMs = dur(timing, 'app')
        q.harnessMs = dur(timing, 'harness')
        try {
          const env = JSON.parse(this.responseText)
          if (env.ok) {
            q.total = env.value.total
            q.first = env.value.rows.length ? env.value.rows[0].orderId : null
          }
        } catch {}
        const ch = new MessageChannel()
        ch.port1.onmessage = () => (q.scriptEndAt = performance.now())
        ch.port2.postMessage(0)
      })
    return open0.apply(this, arguments)
  }
  XMLHttpRequest.prototype.send = function (body) {
    if (this.__query) {
      let input = {}
      try { input = JSON.parse(String(body)) } catch {}
      const q = { at: performance.now(), respAt: null, scriptEndAt: null, appMs: null, harnessMs: null, key: keyOf(input.filter || {}), offset: input.offset, total: null, first: null }
      b.queries.push(q)
      this.__q = q
    }
    return send0.apply(this, arguments)
  }
  // The latest answered first-page query of this filter since the action began.
  const answerOf = (key) => b.queries.filter((x) => x.key === key && x.offset === 0 && x.respAt !== null && x.total !== null).pop()
  const first = new MutationObserver(() => {
    if (document.querySelector('table.orders tbody tr[data-order]')) {
      first.disconnect()
      afterFrame().then((t) => (b.firstRowPaintedAt = t))
    }
  })
  first.observe(document, { childList: true, subtree: true })
  document.addEventListener('input', (e) => { if (e.target && e.target.matches && e.target.matches('[data-testid="orders-search"]')) b.lastKey = performance.now() }, true)

  b.total = () => Number(document.querySelector('table.orders')?.getAttribute('data-total') ?? -1)
  b.load = () => {
    const fcp = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')
    return { firstRows: b.firstRowPaintedAt, fcp: fcp ? fcp.startTime : null }
  }
  // Resolves with the time the frame showing main's answer to this filter (its total and
  // first row) has rendered. The check runs first in every frame (a loop of animation
  // callbacks, each registered in the frame before, runs ahead of those the page registers
  // between frames), and the message it posts then comes right after that frame's
  // rendering: not after the work the page defers to once the frame is painted (the
  // table's rows beyond the view, the page ahead), which a callback registered after the
  // page's would count. ready() says whether the operator's action is complete (the last
  // key typed), so a loop started before it counts no earlier frame. The simulator keeps
  // writing, so the answer is main's latest to this filter, whatever it holds.
  b.shown = (key, timeoutMs, ready = () => true) => new Promise((resolve, reject) => {
    const ok = () => {
      if (!ready()) return false
      const a = answerOf(key)
      if (!a) return false
      const t = document.querySelector('table.orders')
      const r = t && t.querySelector('tbody tr[data-order]')
      return !!t && Number(t.dataset.total) === a.total && (a.first === null ? !r : !!r && Number(r.dataset.order) === a.first)
    }
    let done = false
    const check = (frameStart) => {
      if (done) return
      if (!ok()) return requestAnimationFrame(check)
      done = true
      b.shownFrameStart = frameStart
      clearTimeout(timer)
      const ch = new MessageChannel()
      ch.port1.onmessage = () => resolve(performance.now())
      ch.port2.postMessage(0)
    }
    const timer = setTimeout(() => { done = true; reject(new Error('the table did not show the answer to ' + key)) }, timeoutMs)
    requestAnimationFrame(check)
  })
  // The option is found by its value (the fiat's label carries its order count, "INR (100,400)").
  b.selectChange = async (label, optionValue, key) => {
    const field = [...document.querySelectorAll('form.filters label.field')].find((l) => (l.firstChild && l.firstChild.textContent || '').trim() === label)
    const sel = field && field.querySelector('select')
    if (!sel) throw new Error('no select labelled ' + label)
    const index = [...sel.options].findIndex((o) => o.value === optionValue)
    if (index < 0) throw new Error('no option of value "' + optionValue + '" in ' + label + ': ' + [...sel.options].map((o) => o.text).join(', '))
    b.queries.length = 0
    const t0 = performance.now()
    sel.selectedIndex = index
    sel.dispatchEvent(new Event('change', { bubbles: true }))
    const t1 = await b.shown(key, 15000)
    const q = answerOf(key)
    return { ms: t1 - t0, ...parts(q, t1) }
  }
  // An answer's way, in ms: sent to arrived (rpc; of which the harness's own part and the
  // channel's), arrived to shown (render), and of that the main thread's work: the page's
  // handling of the answer, then the frame from its start (the wait for the frame apart).
  const parts = (q, t1) => {
    if (!q || q.respAt === null) return { rpcMs: null, renderMs: null, renderWorkMs: null, appMs: null, harnessMs: null, wire: null }
    const scriptEnd = q.scriptEndAt === null ? q.respAt : Math.min(q.scriptEndAt, t1)
    const frameStart = Math.max(b.shownFrameStart || 0, scriptEnd)
    return {
      rpcMs: q.respAt - q.at,
      renderMs: t1 - q.respAt,
      renderWorkMs: scriptEnd - q.respAt + (t1 - frameStart),
      appMs: q.appMs,
      harnessMs: q.harnessMs,
      wire: wireOf(q)
    }
  }
  // Where the wire's time went, from the query's resource timing (the entry that started
  // as send() was called): queued in Chromium before the request went out; sent to the
  // first byte of the answer, less the harness's own time (main's event loop busy with
  // other work before it read the request, and the loopback); the answer's bytes; and its
  // end to the load event (the page's main thread busy before it dispatched it).
  const wireOf = (q) => {
    let best = null
    for (const e of performance.getEntriesByType('resource')) {
      if (!e.name.includes('/rpc/orders:query') || Math.abs(e.startTime - q.at) > 5) continue
      if (!best || Math.abs(e.startTime - q.at) < Math.abs(best.startTime - q.at)) best = e
    }
    if (!best || !best.requestStart || !best.responseStart) return null
    return {
      queuedMs: best.requestStart - best.startTime,
      toMainMs: Math.max(0, best.responseStart - best.requestStart - (q.harnessMs || 0)),
      bytesMs: best.responseEnd - best.responseStart,
      toPageMs: Math.max(0, q.respAt - best.responseEnd)
    }
  }
  // The frame check starts before the first key: started after the keys (a round trip from
  // the driver later), it would miss the frame that showed the result and count the next.
  b.armSearch = (key, text) => {
    b.queries.length = 0
    b.lastKey = 0
    const box = document.querySelector('[data-testid="orders-search"]')
    const panel = document.getElementById('orders-panel')
    // The view has taken the text as its search (a short one waits for its pause).
    b.searchShown = b.shown(key, 15000, () => b.lastKey > 0 && box.value === text && panel.dataset.search === text.trim())
    b.searchShown.catch(() => undefined)
  }
  b.searchDone = async (key) => {
    const t1 = await b.searchShown
    const q = b.queries.filter((x) => x.key === key && x.offset === 0 && x.respAt !== null && x.respAt <= t1).pop()
    return { fromKey: t1 - b.lastKey, fromQuery: q ? t1 - q.at : null, ...parts(q, t1) }
  }
  // One scroll step per frame; per frame, ms from its start to the end of its rendering.
  b.scrollTop = () => { document.querySelector('[data-testid="orders-scroller"]').scrollTop = 0 }
  b.scrollFrames = (frames, stepPx) => new Promise((resolve) => {
    const sc = document.querySelector('[data-testid="orders-scroller"]')
    const out = []
    let loadingFrames = 0
    let start = 0
    const ch = new MessageChannel()
    ch.port1.onmessage = () => {
      out.push(performance.now() - start)
      if (stepPx > 0 && sc.querySelector('tr.loading')) loadingFrames++
      if (out.length >= frames) resolve({ frames: out, loadingFrames })
      else requestAnimationFrame(frame)
    }
    const frame = (t) => {
      start = t
      if (stepPx > 0) sc.scrollTop = Math.min(sc.scrollTop + stepPx, sc.scrollHeight)
      ch.port2.postMessage(0)
    }
    requestAnimationFrame(frame)
  })
})()`
