// A Content Security Policy as an HTML meta tag can carry it: the same directives, less
// frame-ancestors (browsers ignore it in a meta tag, so index.html leaves it out).
export function metaContentSecurityPolicy(headerPolicy: string): string {
  return headerPolicy
    .split('; ')
    .filter((d) => !d.startsWith('frame-ancestors '))
    .join('; ')
}
