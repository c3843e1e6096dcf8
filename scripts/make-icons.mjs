#!/usr/bin/env node
// Renders resources/icon.svg and resources/tray.svg to the PNG sizes electron-builder
// and the tray need, with the system Chromium (no image toolchain required).
import { chromium } from '@playwright/test'
import { readFileSync } from 'node:fs'

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] })
const page = await browser.newPage()
async function render(svgFile, out, size) {
  const svg = readFileSync(svgFile, 'utf8')
  await page.setViewportSize({ width: size, height: size })
  await page.setContent(
    `<html><body style="margin:0;background:transparent">${svg.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`
  )
  await page.screenshot({ path: out, omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } })
}
await render('resources/icon.svg', 'resources/icon.png', 1024)
for (const s of [16, 32, 48, 64, 128, 256, 512]) await render('resources/icon.svg', `resources/icons/${s}x${s}.png`, s)
await render('resources/tray.svg', 'resources/trayTemplate.png', 16)
await render('resources/tray.svg', 'resources/trayTemplate@2x.png', 32)
await browser.close()
