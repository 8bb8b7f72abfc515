/** Vite's `?url` imports: the file is emitted with the build and its URL is the module's default export. */
declare module '*?url' {
  const url: string;
  export default url;
}
