// The emulator's model catalogue: every kind, with prices in the API's units.
export interface LanguageModel {
  id: string;
  fingerprint: string;
  created: number;
  object: 'model';
  owned_by: string;
  version: string;
  input_modalities: string[];
  output_modalities: string[];
  aliases: string[];
  prompt_text_token_price: number;
  cached_prompt_text_token_price: number;
  prompt_image_token_price: number;
  completion_text_token_price: number;
  search_price: number;
  context_length: number;
  /** emulator-only: reasoning models reject some sampling fields and the legacy endpoints */
  reasoning?: boolean;
  /** emulator-only: the older family without presence_penalty */
  legacyFamily?: boolean;
}

const CREATED = 1_735_689_600; // 2025-01-01

export const LANGUAGE_MODELS: LanguageModel[] = [
  {
    id: 'svc-4',
    fingerprint: 'fp_svc4_emu',
    created: CREATED,
    object: 'model',
    owned_by: 'svc',
    version: '4.0.0',
    input_modalities: ['text', 'image'],
    output_modalities: ['text'],
    aliases: ['svc-latest', 'svc-4-latest'],
    prompt_text_token_price: 30000,
    cached_prompt_text_token_price: 7500,
    prompt_image_token_price: 30000,
    completion_text_token_price: 150000,
    search_price: 2500000000,
    context_length: 256000,
  },
  {
    id: 'svc-4-mini',
    fingerprint: 'fp_svc4mini_emu',
    created: CREATED,
    object: 'model',
    owned_by: 'svc',
    version: '4.0.0',
    input_modalities: ['text'],
    output_modalities: ['text'],
    aliases: ['svc-mini'],
    prompt_text_token_price: 3000,
    cached_prompt_text_token_price: 750,
    prompt_image_token_price: 0,
    completion_text_token_price: 5000,
    search_price: 2500000000,
    context_length: 128000,
  },
  {
    id: 'svc-4-reasoning',
    fingerprint: 'fp_svc4r_emu',
    created: CREATED,
    object: 'model',
    owned_by: 'svc',
    version: '4.0.0',
    input_modalities: ['text', 'image'],
    output_modalities: ['text'],
    aliases: ['svc-reasoning'],
    prompt_text_token_price: 20000,
    cached_prompt_text_token_price: 5000,
    prompt_image_token_price: 20000,
    completion_text_token_price: 100000,
    search_price: 2500000000,
    context_length: 256000,
    reasoning: true,
  },
  {
    id: 'svc-3',
    fingerprint: 'fp_svc3_emu',
    created: CREATED - 31_536_000,
    object: 'model',
    owned_by: 'svc',
    version: '3.1.0',
    input_modalities: ['text'],
    output_modalities: ['text'],
    aliases: [],
    prompt_text_token_price: 20000,
    cached_prompt_text_token_price: 20000,
    prompt_image_token_price: 0,
    completion_text_token_price: 100000,
    search_price: 2500000000,
    context_length: 131072,
    legacyFamily: true,
  },
];

export const EMBEDDING_MODELS = [
  {
    id: 'svc-embed-1',
    fingerprint: 'fp_embed1_emu',
    created: CREATED,
    object: 'model',
    owned_by: 'svc',
    version: '1.0.0',
    input_modalities: ['text'],
    prompt_text_token_price: 1000,
    prompt_image_token_price: 0,
    aliases: ['svc-embed'],
    /** emulator-only: vector size */
    dimensions: 256,
  },
];

export const IMAGE_MODELS = [
  {
    id: 'svc-image-1',
    fingerprint: 'fp_image1_emu',
    created: CREATED,
    object: 'model',
    owned_by: 'svc',
    version: '1.0.0',
    max_prompt_length: 1024,
    image_price: 7,
    input_modalities: ['text', 'image'],
    output_modalities: ['image'],
    aliases: ['svc-image'],
    prompt_text_token_price: 10000,
    prompt_image_token_price: 10000,
    generated_image_token_price: 0,
  },
];

export const VIDEO_MODELS = [
  {
    id: 'svc-video-1',
    fingerprint: 'fp_video1_emu',
    created: CREATED,
    object: 'model',
    owned_by: 'svc',
    version: '1.0.0',
    input_modalities: ['text', 'image', 'video'],
    output_modalities: ['video'],
    aliases: ['svc-video'],
    /** USD cents per second of video generated (the API's catalogue shows no video price; see README) */
    generated_video_second_price: 5,
  },
];

/** Emulator-only fields are not part of the API's shapes. */
export function publicModel<T extends object>(m: T): T {
  const {
    reasoning: _r,
    legacyFamily: _l,
    dimensions: _d,
    ...rest
  } = m as T & { reasoning?: unknown; legacyFamily?: unknown; dimensions?: unknown };
  return rest as T;
}

export function findLanguageModel(idOrAlias: string): LanguageModel | undefined {
  return LANGUAGE_MODELS.find((m) => m.id === idOrAlias || m.aliases.includes(idOrAlias));
}
