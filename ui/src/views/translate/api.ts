// Typed wrappers for the Translate view's commands (src-tauri/src/commands/translate.rs). Types come from
// ../../bindings (generated from the Rust types, serde names); argument names are camelCase.

import { type ChosenFile, type Id, type Operation, type Progress, type Register, call, channel, startOperation } from '../../api';

import type {
  Analysis,
  CandidateOut,
  ContrastRun,
  Label,
  Marker,
  RepairOutcome,
  ReviewOverride,
  ReviewRow,
  Resegmented,
  ReviewRun,
  SegmentCheck,
  SegmentOut,
  SegmentStatus,
  TmMatch,
  TranslateOutcome,
  TranslateRequest,
  TranslateSource,
  Verdict,
} from '../../bindings';
export type { Analysis, ContrastRun, Label, Marker, RepairOutcome, Resegmented, ReviewOverride, ReviewRow, ReviewRun, SegmentCheck, SegmentOut, SegmentStatus, TmMatch, TranslateOutcome, TranslateRequest, TranslateSource, Verdict };
/** A candidate translation of one segment (registro_core::translate::CandidateOut). */
export type Candidate = CandidateOut;

/** Core's defaults for a translation (the default model from REGISTRO_DEFAULT_MODEL among them): what the form starts
 * from; read once at start (src/defaults.ts). */
export const translateDefaults = () => call<TranslateRequest>('translate_defaults');
/** Translates `source` as `request` asks (core's type, the form's fields changed in it); pasted text is stored as a
 * document of the project. `onSegment` sees each segment as soon as it is finished and stored (in the order they
 * finish). */
export const translateText = (
  projectId: Id,
  source: TranslateSource,
  request: TranslateRequest,
  onProgress: (p: Progress) => void,
  onSegment: (s: SegmentOut) => void,
): Operation<TranslateOutcome> =>
  startOperation<TranslateOutcome>('translate_text', { projectId, source, request, onSegment: channel(onSegment) }, onProgress);
export const checkTranslation = (lang: string, register: Register, text: string) =>
  call<SegmentCheck>('check_translation', { lang, register, text });
export const saveTranslationEdit = (runId: Id, segment: number, lang: string, register: Register, text: string) =>
  call<SegmentCheck>('save_translation_edit', { runId, segment, lang, register, text });
export const repairTranslation = (lang: string, register: Register, text: string) =>
  call<string>('repair_translation', { lang, register, text });

/** A stored translate run as the review grid shows it. */
export const reviewRun = (runId: Id) => call<ReviewRun>('review_run', { runId });
/** Rows `from..from + count` of the run (no contrastive column): the grid paints these while the whole run loads. */
export const reviewRunRows = (runId: Id, from: number, count: number) => call<ReviewRun>('review_run_rows', { runId, from, count });
/** A segment with an open flag is signed off (reviewed/approved) only with `overrideReason`, stored with the user's
 * name and the time; returns the override in force. */
export const setSegmentStatus = (runId: Id, segment: number, status: SegmentStatus, overrideReason: string | null = null) =>
  call<ReviewOverride | null>('set_segment_status', { runId, segment, status, overrideReason });
/** Repairs the stored segment in place; every output check runs again on the result (the flag stays unless they pass). */
export const repairSegment = (runId: Id, segment: number) => call<RepairOutcome>('repair_segment', { runId, segment });
/** Splits segment `segment` of the run's document before character `at`; both halves are left to translate. */
export const splitSegment = (runId: Id, segment: number, at: number) => call<Resegmented>('split_segment', { runId, segment, at });
/** Joins segment `segment` of the run's document with the next one (never across paragraphs, cells or cues). */
export const joinSegments = (runId: Id, segment: number) => call<Resegmented>('join_segments', { runId, segment });
/** The run in its document's own format (DOCX, XLIFF, …) or as text; `file` from `chooseFile('save-text', …)`.
 * QA errors refuse it unless `force` ("export anyway", recorded with `reason`). Each step goes to `onProgress`; a
 * cancelled export writes nothing. */
export const exportDocument = (runId: Id, file: ChosenFile, force: boolean, reason: string | null, onProgress: (p: Progress) => void): Operation<string> =>
  startOperation<string>('export_document', { runId, file: file.token, force, reason }, onProgress);
/** The run's approved segments as a TMX translation memory. */
export const exportTmx = (runId: Id, file: ChosenFile) => call<string>('export_tmx', { runId, file: file.token });
