// Types and command wrappers of the Rewrite view (src-tauri/src/commands/rewrite.rs; types mirror
// registro_rewrite::pipeline / rerank and registro_core::rewrite as serde serializes them).

import { type ChosenFile, type Id, type Operation, type Progress, call, startOperation } from '../api';

export type Method = 'rules' | 'roundtrip' | 'llm';

export interface Weights {
  formality: number;
  meaning: number;
  fluency: number;
}

export interface Scores {
  formality: number;
  meaning: number;
  perplexity: number | null;
  gm: number;
}

/** A piece of the side-by-side view: `kind` null = unchanged; concatenated `old` = input, `new` = candidate. */
export interface Piece {
  kind: string | null;
  old: string;
  new: string;
}

export interface CandidateView {
  text: string;
  origin: string;
  scores: Scores;
  pieces: Piece[];
}

export interface SentenceResult {
  input: string;
  formality_before: number;
  candidates: CandidateView[];
  seconds: number;
}

export interface Summary {
  sentences: number;
  formality_before: number;
  formality_after: number;
  chrf_to_input: number;
  perplexity: number | null;
  gm: number;
  seconds_per_sentence: number;
}

export interface RewriteOutcome {
  run_id: Id | null;
  lang: string;
  method: Method;
  model: string | null;
  scorer: string;
  weights: Weights;
  sentences: SentenceResult[];
  summary: Summary;
}

export interface RewriteArgs {
  text?: string;
  document_id?: Id | null;
  lang: string;
  method: Method;
  n?: number;
  model?: string | null;
  weights?: Weights;
  scorer?: string;
  fluency?: boolean;
}

export const rewriteText = (projectId: Id, args: RewriteArgs, onProgress: (p: Progress) => void): Operation<RewriteOutcome> =>
  startOperation<RewriteOutcome>('rewrite_text', { projectId, args }, onProgress);

export const scoreFormality = (sentences: string[], lang: string, scorer?: string) =>
  call<number[]>('score_formality', { sentences, lang, scorer: scorer ?? null });

/** `file` from `chooseFile('save-text', …)`; returns the path written. */
export const exportRewrite = (file: ChosenFile, text: string) => call<string>('export_rewrite', { file: file.token, text });
