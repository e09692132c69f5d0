import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The app is one chunk (React, zod through the SDK, dagre): about 140 kB gzip; the warning limit sits just above it.
// `base: './'` makes every asset URL relative, so the same build works at `/` and at `/playground/`.
// In development `/ojs` is proxied to a running gateway (OJSKIT_URL, default http://localhost:8080), so the
// page talks to it on its own origin exactly as when the gateway serves it.
export default defineConfig({
  base: './',
  plugins: [react()],
  resolve: { conditions: ['@ojskit/source'] },
  server: { proxy: { '/ojs': { target: process.env['OJSKIT_URL'] ?? 'http://localhost:8080', changeOrigin: true } } },
  build: { outDir: 'dist', sourcemap: false, target: 'es2022', chunkSizeWarningLimit: 500 },
});
