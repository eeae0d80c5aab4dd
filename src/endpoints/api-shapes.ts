// The API's request and reply shapes, read from the generated types of its document (svc-formats/api-types): types
// only, nothing is loaded at run time. The endpoint modules alias these instead of restating them.
import type { components, operations } from 'svc-formats/api-types';

/** a named schema of the document */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

type Json<Part> = Part extends { content: { 'application/json': infer Shape } } ? Shape : never;

/** the JSON reply of an operation's success (200 or 201) */
export type JsonReply<Id extends keyof operations> = Json<
  | operations[Id]['responses'][200 & keyof operations[Id]['responses']]
  | operations[Id]['responses'][201 & keyof operations[Id]['responses']]
>;

/** the JSON body an operation takes */
export type JsonBody<Id extends keyof operations> = Json<NonNullable<operations[Id]['requestBody']>>;

/** the query parameters an operation takes */
export type Query<Id extends keyof operations> = NonNullable<operations[Id]['parameters']['query']>;
