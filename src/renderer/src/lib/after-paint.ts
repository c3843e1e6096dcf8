// Work that must not delay the frame showing an answer: run it after that frame has been
// painted (a task queued from the frame's animation callback runs after its paint).
// Without frames (a hidden window, tests in Node) it runs as the next task.

/** Runs f after the next frame is painted; the returned function cancels it. */
export function afterPaint(f: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  if (typeof requestAnimationFrame !== 'function' || (typeof document !== 'undefined' && document.hidden)) {
    timer = setTimeout(f)
    return () => clearTimeout(timer)
  }
  const frame = requestAnimationFrame(() => (timer = setTimeout(f)))
  return () => {
    cancelAnimationFrame(frame)
    clearTimeout(timer)
  }
}
