// The renderer's root is src/renderer, where vite-plugin-svelte looks for its config:
// use the repository's one (runes on, vitePreprocess) rather than the defaults.
export { default } from '../../svelte.config.js'
