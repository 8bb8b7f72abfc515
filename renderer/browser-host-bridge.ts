/**
 * The page side of the browser host (bundled as desk-bridge.js, an IIFE the host injects before
 * the renderer's own script): defines `window.desk` with the product's timings.
 */
import { installDeskBridge } from './browser-host/desk-bridge';

installDeskBridge();
