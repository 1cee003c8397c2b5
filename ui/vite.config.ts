import { defineConfig } from 'vite';

// The bundle is embedded into the app binary (tauri.conf.json → build.frontendDist = ui/dist). WebKitGTK 2.40+
// (Debian 12) and WebView2 both handle ES2021.
export default defineConfig({
  clearScreen: false,
  build: {
    target: 'es2021',
    outDir: 'dist',
    emptyOutDir: true,
    // No inline <script>/<style>: the CSP allows only 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  server: { port: 1420, strictPort: true },
});
