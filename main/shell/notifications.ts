/** The Notifier port over Electron's Notification: clicking one brings the window back. */
import { Notification, type App } from 'electron';
import type { Notifier } from '../app/ports';

/** electron-builder.yml's appId: Windows shows notifications only for the installed app's id. */
export const APP_USER_MODEL_ID = 'com.example.signingbatchdesk';

/** Makes notifications work on Windows, where they are filed under the app's user model id. */
export function prepareNotifications(app: App, platform: NodeJS.Platform): void {
  if (platform === 'win32') app.setAppUserModelId(APP_USER_MODEL_ID);
}

/** Shows system notifications; silently does nothing where the OS has none. */
export function createSystemNotifier(onClick: () => void): Notifier {
  // Held until closed or clicked: a notification collected early loses its click handler.
  const shown = new Set<Notification>();
  return {
    notify(title, body) {
      if (!Notification.isSupported()) return;
      const notification = new Notification({ title, body });
      shown.add(notification);
      notification.on('click', () => {
        shown.delete(notification);
        onClick();
      });
      notification.on('close', () => shown.delete(notification));
      notification.show();
    },
  };
}
