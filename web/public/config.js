// Run-time configuration of the console SPA, read before the app starts (src/config.ts).
// Served uncached (`Cache-Control: no-cache`) and replaced at deploy time, never rebuilt.
// With the SPA on a CDN, give the API's origin:
//   window.__CONSOLE_CONFIG__ = { apiBaseUrl: "https://api.console.example.com" };
// Without apiBaseUrl the build-time VITE_API_BASE_URL applies ("": the SPA's own origin,
// where the API serves web/dist). README "SPA on a CDN".
window.__CONSOLE_CONFIG__ = {};
