import { contextBridge } from 'electron';

/** The bridge the renderer sees. It grows one named, typed function per capability. */
const bridge = {
  host: 'electron' as const,
};

contextBridge.exposeInMainWorld('desk', bridge);
