// Typed wrappers for the Translate view's commands (src-tauri/src/commands/translate.rs). Struct fields keep the
// Rust serde names; argument names are camelCase.

import { type ChosenFile, type Id, type Operation, type Progress, type Register, call, startOperation } from '../api';

export type Label = 'FORMAL' | 'INFORMAL' | 'NEUTRAL' | 'MIXED';
export type Verdict = 'ok' | 'neutral' | 'uncertain' | 'wrong';

/** registro_register::Marker: offsets in bytes and in Unicode code points (index `Array.from(text)`). */
export interface Marker {
  start: number;
  end: number;
  char_start: number;
  char_end: number;
  text: string;
  register: Register;
  kind: string;
  strong: boolean;
}

export interface Analysis {
  label: Label;
  markers: Marker[];
  respectful: boolean;
}

export interface Candidate {
  text: string;
  logprob: number;
  model_score: number;
  score: number;
  label: Label;
  verdict: Verdict;
  chosen: boolean;
}

/** registro_core::translate::SegmentOut */
export interface SegmentOut {
  index: number;
  source: string;
  text: string;
  register: Register;
  analysis: Analysis;
  verdict: Verdict;
  flagged: boolean;
  flag_reason: string | null;
  before_repair: string | null;
  candidates: Candidate[];
  seconds: number;
}

export interface TranslateArgs {
  text: string;
  document_id: Id | null;
  lang: string;
  register: Register;
  overrides: Record<number, Register>;
  model: string | null;
  controls: string;
  system: 'controlled' | 'pivot';
  n_best: number;
  gender: string | null;
}

export interface TranslateOutcome {
  run_id: Id;
  segments: SegmentOut[];
}

export interface SegmentCheck {
  analysis: Analysis;
  verdict: Verdict;
  flagged: boolean;
  flag_reason: string | null;
}

export const translateText = (projectId: Id, args: TranslateArgs, onProgress: (p: Progress) => void): Operation<TranslateOutcome> =>
  startOperation<TranslateOutcome>('translate_text', { projectId, args }, onProgress);
export const checkTranslation = (lang: string, register: Register, text: string) =>
  call<SegmentCheck>('check_translation', { lang, register, text });
export const saveTranslationEdit = (runId: Id, segment: number, lang: string, register: Register, text: string) =>
  call<SegmentCheck>('save_translation_edit', { runId, segment, lang, register, text });
export const repairTranslation = (lang: string, register: Register, text: string) =>
  call<string>('repair_translation', { lang, register, text });
/** `file` from `chooseFile('save-text', …)`; returns the path written. */
export const exportTranslation = (file: ChosenFile, text: string) => call<string>('export_translation', { file: file.token, text });
