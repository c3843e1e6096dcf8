// Renderer entry: one bundle for both windows. ?view=tray mounts the compact tray
// popover, anything else the main window.
import { mount } from 'svelte'
import './app.css'
import App from './App.svelte'
import TrayApp from './TrayApp.svelte'

const view = new URLSearchParams(location.search).get('view')
const target = document.getElementById('app')
if (!target) throw new Error('missing #app')
document.documentElement.dataset.view = view === 'tray' ? 'tray' : 'main'

export default view === 'tray' ? mount(TrayApp, { target }) : mount(App, { target })
