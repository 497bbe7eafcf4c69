/** A value that survives `JSON.stringify` → `JSON.parse` unchanged. */
export type JSONValue = null | string | number | boolean | JSONObject | JSONValue[];
export interface JSONObject {
  [key: string]: JSONValue | undefined;
}

/** A JSON Schema document (draft 2020-12 or draft-07), as sent to models as tool parameters. */
export type JSONSchema = {
  type?: string | string[];
  properties?: Record<string, JSONSchema>;
  required?: string[];
  items?: JSONSchema | JSONSchema[];
  enum?: unknown[];
  description?: string;
  additionalProperties?: boolean | JSONSchema;
  [key: string]: unknown;
};
