import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `npm run dev` serves the page with hot reload; its /hub goes to the server (`npm run sim` or `npm start` on :8080).
export default defineConfig({
  plugins: [react()],
  server: { proxy: { '/hub': { target: 'ws://127.0.0.1:8080', ws: true } } },
  build: { target: 'es2022', sourcemap: true },
});
