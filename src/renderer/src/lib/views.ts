// The main window's views, in the order of the navigation (Alt+1 … Alt+8).
export const VIEWS = ['tickers', 'quote', 'address', 'bank', 'orders', 'webhooks', 'diagnostics', 'settings'] as const
export type ViewId = (typeof VIEWS)[number]
