// The app:// scheme the desktop shell serves its pages from (app://rampdesk/...), answered
// from the built renderer folder. Pure Node, no Electron: given the folder and a request it
// returns the status, headers and body, so the containment rules are tested under plain
// Node; src/main/electron/app-protocol.ts only hands requests over to it.
//
// Why a custom scheme and not file://: file:// pages get privileges beyond a web page
// (any file:// URL is same-origin with them), and their trust could only be checked by
// path. app://rampdesk is one standard, secure origin whose every response goes through
// this function: only files inside the renderer folder, each with the CSP header.
import fs from 'node:fs'
import { extname, isAbsolute, relative, resolve, sep } from 'node:path'

export const APP_SCHEME = 'app'
const APP_HOST = 'rampdesk'
const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`

export type AppView = 'main' | 'tray'

/** The URL a window loads: one bundle for both windows, the view chosen by the query. */
export function appPageUrl(view: AppView): string {
  return `${APP_ORIGIN}/index.html?view=${view}`
}

/** Whether a URL is a page of app://rampdesk (exactly that origin: no user, no port, no other host). */
export function isAppOriginUrl(url: string): boolean {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return false
  }
  return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST && u.username === '' && u.password === '' && u.port === ''
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2'
}

/** The Content-Type of a served file; unknown kinds are opaque bytes (nosniff keeps them so). */
export function mimeType(file: string): string {
  return MIME[extname(file).toLowerCase()] ?? 'application/octet-stream'
}

export interface AppRequest {
  url: string
  method?: string
  /**
   * The origin that issued the request, as Electron reports it (not controlled by the
   * page); absent for navigations the app itself started.
   */
  initiatorOrigin?: string
}

export interface AppResponse {
  status: number
  headers: Record<string, string>
  /** The file's bytes, or a short plain-text reason for an error; empty for HEAD. */
  body: Uint8Array
  /** The file served (its real path), for 200 answers. */
  file?: string
}

/** Headers every app:// answer carries, errors included: the page's policy must not depend on which response it got. */
function baseHeaders(csp: string, contentType: string): Record<string, string> {
  return {
    'Content-Type': contentType,
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store'
  }
}

function refuse(status: number, reason: string, csp: string): AppResponse {
  return { status, headers: baseHeaders(csp, 'text/plain; charset=utf-8'), body: new TextEncoder().encode(reason) }
}

/** Whether `target` is `root` itself or below it; both absolute and normalised. */
function isInside(root: string, target: string): boolean {
  const rel = relative(root, target)
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith('..' + sep))
}

/**
 * The relative file path a request names, or why it names none. The pathname is decoded
 * once, here, so what is checked is what the filesystem would see: `..%2F`, `%2e%2e/`
 * and `%5C` are refused after decoding, not before.
 */
function requestedPath(pathname: string): { path: string } | { status: number; reason: string } {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return { status: 400, reason: 'malformed path' }
  }
  // A NUL byte ends a path in C below Node; a backslash is a separator on Windows. Neither is in any file we ship.
  if (decoded.includes('\0') || decoded.includes('\\')) return { status: 403, reason: 'forbidden path' }
  const rel = decoded.replace(/^\/+/, '')
  // A drive letter or UNC remnant would make resolve() leave the root on Windows.
  if (isAbsolute(rel) || /^[A-Za-z]:/.test(rel)) return { status: 403, reason: 'forbidden path' }
  if (rel.split('/').some((segment) => segment === '..')) return { status: 403, reason: 'forbidden path' }
  return { path: rel === '' || rel.endsWith('/') ? `${rel}index.html` : rel }
}

/**
 * Answers one app:// request from `root` (the built renderer folder). Only GET and HEAD,
 * only host `rampdesk`, only from the app's own origin (or the app itself), and only a
 * regular file whose real path (symlinks resolved) is inside the real root: anything else
 * is 403, 404 or 405, never a file from elsewhere.
 */
export async function answerAppRequest(root: string, request: AppRequest, csp: string): Promise<AppResponse> {
  const method = (request.method ?? 'GET').toUpperCase()
  if (method !== 'GET' && method !== 'HEAD') {
    const r = refuse(405, 'method not allowed', csp)
    return { ...r, headers: { ...r.headers, Allow: 'GET, HEAD' } }
  }
  if (request.initiatorOrigin !== undefined && request.initiatorOrigin !== APP_ORIGIN) return refuse(403, 'foreign origin', csp)
  let url: URL
  try {
    url = new URL(request.url)
  } catch {
    return refuse(400, 'malformed URL', csp)
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST || url.username !== '' || url.password !== '') {
    return refuse(404, 'not found', csp)
  }
  const wanted = requestedPath(url.pathname)
  if ('status' in wanted) return refuse(wanted.status, wanted.reason, csp)

  // fs.promises is looked up at call time: Electron patches it to read inside app.asar.
  let realRoot: string
  let realFile: string
  try {
    realRoot = await fs.promises.realpath(resolve(root))
  } catch {
    return refuse(404, 'not found', csp)
  }
  const candidate = resolve(realRoot, wanted.path)
  if (!isInside(realRoot, candidate)) return refuse(403, 'forbidden path', csp)
  try {
    realFile = await fs.promises.realpath(candidate)
  } catch {
    return refuse(404, 'not found', csp)
  }
  // A symlink inside the folder may point anywhere: what counts is where it lands.
  if (!isInside(realRoot, realFile)) return refuse(403, 'forbidden path', csp)
  try {
    const info = await fs.promises.stat(realFile)
    if (!info.isFile()) return refuse(404, 'not found', csp)
    const body = method === 'HEAD' ? new Uint8Array(0) : new Uint8Array(await fs.promises.readFile(realFile))
    return {
      status: 200,
      headers: baseHeaders(csp, mimeType(realFile)),
      body,
      file: realFile
    }
  } catch {
    return refuse(404, 'not found', csp)
  }
}
