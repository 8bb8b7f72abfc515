import { join } from 'node:path';
import { app, BrowserWindow } from 'electron';

/**
 * Electron entry point. The shell stays a thin adapter over the core in main/: it owns the
 * app lifecycle and windows, nothing else (ENGINEERING.md).
 */
function createMainWindow(): BrowserWindow {
  const window = new BrowserWindow({
    width: 1200,
    height: 800,
    show: false,
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
    },
  });
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  window.webContents.on('will-navigate', (event) => event.preventDefault());
  window.once('ready-to-show', () => window.show());
  void window.loadFile(join(import.meta.dirname, '../renderer/index.html'));
  return window;
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  void app.whenReady().then(createMainWindow);
  app.on('window-all-closed', () => app.quit());
}
