// What every form starts from: core's request types with every option's default (the default model from
// REGISTRO_DEFAULT_MODEL, the n-best, the controls that are on, the rewrite weights, …), read from the backend once
// when the window starts, before any view is mounted. No view writes a default of its own: a form takes a fresh copy
// of these and changes what its fields say.

import type { RewriteRequest, TranslateRequest } from './api';
import { rewriteDefaults } from './views/rewrite-api';
import { translateDefaults } from './views/translate/api';

let loaded: { translate: TranslateRequest; rewrite: RewriteRequest } | null = null;

/** Reads core's defaults (src/main.ts, before the first view mounts). */
export async function loadDefaults(): Promise<void> {
  const [translate, rewrite] = await Promise.all([translateDefaults(), rewriteDefaults()]);
  loaded = { translate, rewrite };
}

function get(): { translate: TranslateRequest; rewrite: RewriteRequest } {
  if (!loaded) throw new Error('the default settings were not read from the backend (loadDefaults)');
  return loaded;
}

/** A fresh copy of core's default translation request. */
export const defaultTranslateRequest = (): TranslateRequest => structuredClone(get().translate);
/** A fresh copy of core's default rewrite request. */
export const defaultRewriteRequest = (): RewriteRequest => structuredClone(get().rewrite);
