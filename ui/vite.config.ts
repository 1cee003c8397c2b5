import { type Plugin, defineConfig } from 'vite';

// Fontsource lists a .woff fallback after each .woff2; every web view Registro runs in reads woff2, so the fallbacks
// would only add ~7.5 MB of never-loaded files to the app binary.
function woff2Only(): Plugin {
  return {
    name: 'registro-woff2-only',
    enforce: 'pre',
    transform(code, id) {
      if (!/[\\/]@fontsource[\\/].*\.css$/.test(id)) return null;
      return { code: code.replace(/,\s*url\([^)]*\.woff\)\s*format\(['"]woff['"]\)/g, ''), map: null };
    },
  };
}

// The bundle is embedded into the app binary (tauri.conf.json → build.frontendDist = ui/dist). WebKitGTK 2.40+
// (Debian 12) and WebView2 both handle ES2021.
export default defineConfig({
  plugins: [woff2Only()],
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
