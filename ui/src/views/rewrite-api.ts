// Command wrappers of the Rewrite view (src-tauri/src/commands/rewrite.rs). Its types are generated from the Rust
// ones (registro_rewrite::pipeline / rerank, registro_core::rewrite) into ../bindings and re-exported here.

import { type ChosenFile, type Id, type Operation, type Progress, call, channel, startOperation } from '../api';

import type {
  CandidateView,
  Method,
  Piece,
  RewriteChoice,
  RewriteOutcome,
  Scores,
  SentenceResult,
  StoredRewrite,
  Summary,
  RewriteVerdict,
  RewriteLang,
  RewriteRequest,
  RewriteSource,
  ScorerChoice,
  Weights,
} from '../bindings';
// A candidate's `verdict` and a piece's `label` are the words shown (registro_rewrite::verdict).
export type { CandidateView, Method, Piece, RewriteChoice, RewriteLang, RewriteOutcome, RewriteRequest, RewriteSource, Scores, ScorerChoice, SentenceResult, StoredRewrite, Summary, RewriteVerdict, Weights };

/** Core's defaults for a rewrite (the tuned weights among them): what the form starts from; read once at start
 * (src/defaults.ts). */
export const rewriteDefaults = () => call<RewriteRequest>('rewrite_defaults');
/** Rewrites `source` as `request` asks (core's type, the form's fields changed in it). `onSentence` sees each
 * sentence as soon as it is rewritten and stored, in order. */
export const rewriteText = (
  projectId: Id,
  source: RewriteSource,
  request: RewriteRequest,
  onProgress: (p: Progress) => void,
  onSentence: (s: SentenceResult) => void,
): Operation<RewriteOutcome> =>
  startOperation<RewriteOutcome>('rewrite_text', { projectId, source, request, onSentence: channel(onSentence) }, onProgress);

export const scoreFormality = (sentences: string[], lang: string, scorer?: string) =>
  call<number[]>('score_formality', { sentences, lang, scorer: scorer ?? null });

/** `file` from `chooseFile('save-text', …)`; returns the path written. */
export const exportRewrite = (file: ChosenFile, text: string) => call<string>('export_rewrite', { file: file.token, text });

/** A stored rewrite run as the view showed it, with the writer's decisions on it (registro_core::rewrite::open_rewrite). */
export const openRewriteRun = (runId: Id) => call<StoredRewrite>('open_rewrite_run', { runId });

/** Keeps the writer's decisions: (segment index, decision) pairs of run `runId`. */
export const saveRewriteChoices = (runId: Id, choices: Array<[number, RewriteChoice]>) => call<null>('save_rewrite_choices', { runId, choices });
