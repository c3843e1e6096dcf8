// The sandbox's failures, carried as exceptions up to the router, which answers them
// with the live error envelope {status: 0, code, error} and the HTTP status equal to code.

export class SandboxError extends Error {
  constructor(
    readonly code: number,
    message: string
  ) {
    super(message)
    this.name = 'SandboxError'
  }
}

export const fail = (code: number, message: string): never => {
  throw new SandboxError(code, message)
}

export function errorBody(code: number, error: string): { status: 0; code: number; error: string } {
  return { status: 0, code, error }
}
