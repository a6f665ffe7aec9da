// Entry of a render worker thread run from the TypeScript sources (tests, `npm run dev`). Worker threads do not inherit vitest's TypeScript transform and
// Node 20 cannot strip types, so tsx's loader is registered here (under `tsx src/main.ts` it is
// already active; registering again is harmless). The heavy libraries are imported first, by Node's
// own resolver: through the loader's hooks they load much more slowly, on every cold start.
await Promise.all([import('vega'), import('vega-lite'), import('pdfkit'), import('fontkit'), import('svg-to-pdfkit'), import('qrcode')]);
const { register } = await import('tsx/esm/api');
register();
export const { render } = await import('./render.ts');
