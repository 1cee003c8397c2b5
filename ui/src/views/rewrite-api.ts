// Command wrappers of the Rewrite view (src-tauri/src/commands/rewrite.rs). Its types are generated from the Rust
// ones (registro_rewrite::pipeline / rerank, registro_core::rewrite) into ../bindings and re-exported here.

import { type ChosenFile, type Id, type Operation, type Progress, call, channel, startOperation } from '../api';

import type {
  CandidateView,
  Method,
  Piece,
  RewriteArgs,
  RewriteChoice,
  RewriteOutcome,
  Scores,
  SentenceResult,
  StoredRewrite,
  Summary,
  RewriteVerdict,
  Weights,
} from '../bindings';
// A candidate's `verdict` and a piece's `label` are the words shown (registro_rewrite::verdict).
export type { CandidateView, Method, Piece, RewriteArgs, RewriteChoice, RewriteOutcome, Scores, SentenceResult, StoredRewrite, Summary, RewriteVerdict, Weights };

/** `onSentence` sees each sentence as soon as it is rewritten and stored, in order. */
export const rewriteText = (
  projectId: Id,
  args: RewriteArgs,
  onProgress: (p: Progress) => void,
  onSentence: (s: SentenceResult) => void,
): Operation<RewriteOutcome> =>
  startOperation<RewriteOutcome>('rewrite_text', { projectId, args, onSentence: channel(onSentence) }, onProgress);

export const scoreFormality = (sentences: string[], lang: string, scorer?: string) =>
  call<number[]>('score_formality', { sentences, lang, scorer: scorer ?? null });

/** `file` from `chooseFile('save-text', …)`; returns the path written. */
export const exportRewrite = (file: ChosenFile, text: string) => call<string>('export_rewrite', { file: file.token, text });

/** A stored rewrite run as the view showed it, with the writer's decisions on it (registro_core::rewrite::open_rewrite). */
export const openRewriteRun = (runId: Id) => call<StoredRewrite>('open_rewrite_run', { runId });

/** Keeps the writer's decisions: (segment index, decision) pairs of run `runId`. */
export const saveRewriteChoices = (runId: Id, choices: Array<[number, RewriteChoice]>) => call<null>('save_rewrite_choices', { runId, choices });
