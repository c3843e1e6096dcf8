// The browser harness brings a page back from a refused sign-in through the team's identity
// provider to Settings with ?signin=<profile>: that profile's credentials are the ones to show
// (its card says why). Taken once, so a reload does not choose it again.
export function takeSignInReturn(): string | null {
  if (typeof location === 'undefined') return null
  const url = new URL(location.href)
  const id = url.searchParams.get('signin')
  if (!id) return null
  url.searchParams.delete('signin')
  history.replaceState(history.state, '', url.href)
  return id
}
