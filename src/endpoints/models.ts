// The model catalogue: GET /v1/models and the four kind lists, each with its get.
import type { Schema } from './api-shapes.js';
import { seg, type HttpClient } from '../net/http.js';
import { expectArray, expectFields } from './guard.js';

export const MODEL_KINDS = ['language', 'embedding', 'image', 'video'] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];

const KIND_PATH: Record<ModelKind, string> = {
  language: '/v1/language-models',
  embedding: '/v1/embedding-models',
  image: '/v1/image-generation-models',
  video: '/v1/video-generation-models',
};

export type Model = Schema<'Model'> & Partial<Schema<'CatalogModel'>>;

export async function listModels(http: HttpClient, kind?: ModelKind): Promise<{ raw: unknown; models: Model[] }> {
  if (!kind) {
    const raw = await http.json('GET', '/v1/models');
    return { raw, models: expectArray<Model>(raw, 'data', 'model list') };
  }
  const raw = await http.json('GET', KIND_PATH[kind]);
  return { raw, models: expectArray<Model>(raw, 'models', `${kind} model list`) };
}

export async function getModel(http: HttpClient, id: string, kind?: ModelKind): Promise<Model> {
  const path = kind ? `${KIND_PATH[kind]}/${seg(id)}` : `/v1/models/${seg(id)}`;
  return expectFields(await http.json<Model>('GET', path), ['id'], 'model');
}

/** Prices are integers in USD cents per 100 million tokens: dollars per million tokens = price / 10,000. */
export function dollarsPerMillionTokens(price: unknown): number | undefined {
  return typeof price === 'number' ? price / 10_000 : undefined;
}

/** Image prices are USD cents per image. */
export function dollarsPerImage(price: unknown): number | undefined {
  return typeof price === 'number' ? price / 100 : undefined;
}

export function formatDollars(v: number | undefined): string {
  if (v === undefined) return '';
  if (v === 0) return '$0';
  // cents stay at two decimals ($0.30); finer prices keep their digits ($0.075)
  return `$${Number.isInteger(Math.round(v * 1e6) / 1e4) ? v.toFixed(2) : String(Number(v.toPrecision(4)))}`;
}
