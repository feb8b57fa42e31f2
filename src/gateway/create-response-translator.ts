import type { OpenAIErrorBody } from '../shared/errors.js';
import type { ChatChunk, ToolCallDelta, Usage } from '../upstream/chat-chunk.js';
import type { ResponsesRequest } from './responses-request.js';
import {
  toIdBase,
  toResponseEnd,
  toResponseShell,
  toResponsesUsage,
  type ResponseIdentity,
} from './response-shell.js';
import { createThinkSplitter } from './think-splitter.js';

type JsonObject = Record<string, unknown>;

/** One typed Responses stream event, `type` and `sequence_number` first. */
export type ResponseEvent = JsonObject & { type: string; sequence_number: number };

/**
 * Turns the chat chunks of one answer (choice 0) into the typed events of a Responses stream, in
 * OpenAI's order: response.created and response.in_progress; per output item (reasoning, message,
 * function call) output_item.added, its part and deltas, their .done events and output_item.done;
 * then response.completed (or response.incomplete at max_output_tokens) with the whole Response.
 * A buffered answer runs the same translation and answers with that final Response, so both agree.
 */
export interface ResponseTranslator {
  push(chunk: ChatChunk): ResponseEvent[];
  /** After the last chunk: closes the open items and ends the response. */
  finish(): ResponseEvent[];
  /** After a failure: an `error` event, then response.failed with what was produced so far. */
  fail(error: OpenAIErrorBody['error']): ResponseEvent[];
  /** The Response as it stands (complete after `finish`). */
  response(): JsonObject;
}

export interface TranslatorOptions {
  request: ResponsesRequest;
  /** Used until (or unless) a chunk carries an id, `created` and a model. */
  fallback: { id: string; createdAt: number; model: string };
}

interface OpenItem {
  kind: 'message' | 'reasoning' | 'function_call';
  outputIndex: number;
  item: JsonObject;
  text: string;
  /** A function call is announced once its name is whole: at its first arguments, or when it ends. */
  announced: boolean;
}

export function createResponseTranslator(options: TranslatorOptions): ResponseTranslator {
  const { request } = options;
  let identity: ResponseIdentity | undefined;
  let sequence = 0;
  let events: ResponseEvent[] = [];
  const output: JsonObject[] = [];
  let current: OpenItem | undefined;
  /** Function calls by their chat index; open until the end, as chat streams may interleave them. */
  const calls = new Map<number, OpenItem>();
  const splitter = createThinkSplitter();
  let usage: Usage | undefined;
  let finishReason: string | null = null;
  let status: 'in_progress' | 'completed' | 'incomplete' | 'failed' = 'in_progress';
  let incompleteDetails: { reason: string } | null = null;
  let failure: JsonObject | null = null;

  const emit = (type: string, fields: JsonObject): void => {
    events.push(Object.assign({ type, sequence_number: sequence }, fields));
    sequence += 1;
  };
  /** The letters of the upstream's id (else the fallback's): every id of this response is built from it. */
  let idBase = toIdBase(options.fallback.id);
  const base = (): string => idBase;
  const snapshot = (): JsonObject =>
    Object.assign(
      toResponseShell(request, {
        identity: identity ?? {
          id: `resp_${toIdBase(options.fallback.id)}`,
          createdAt: options.fallback.createdAt,
          model: options.fallback.model,
        },
        status,
      }),
      {
        output: output.map((item) => structuredClone(item)),
        usage: toResponsesUsage(usage),
        incomplete_details: incompleteDetails,
        error: failure,
      },
    );

  const start = (chunk: ChatChunk | undefined): void => {
    if (identity !== undefined) return;
    if (chunk?.id !== undefined) idBase = toIdBase(chunk.id);
    identity = {
      id: `resp_${idBase}`,
      createdAt: chunk?.created ?? options.fallback.createdAt,
      model: chunk?.model ?? options.fallback.model,
    };
    emit('response.created', { response: snapshot() });
    emit('response.in_progress', { response: snapshot() });
  };

  const announce = (open: OpenItem): void => {
    open.announced = true;
    output[open.outputIndex] = open.item;
    emit('response.output_item.added', {
      output_index: open.outputIndex,
      item: structuredClone(open.item),
    });
    if (open.kind === 'function_call') return;
    const part =
      open.kind === 'message'
        ? { type: 'output_text', text: '', annotations: [], logprobs: [] }
        : { type: 'reasoning_text', text: '' };
    emit('response.content_part.added', {
      item_id: open.item['id'],
      output_index: open.outputIndex,
      content_index: 0,
      part,
    });
  };

  const openItem = (kind: OpenItem['kind'], item: JsonObject): OpenItem => {
    const open: OpenItem = { kind, outputIndex: output.length, item, text: '', announced: false };
    output.push(item);
    return open;
  };

  const close = (open: OpenItem): void => {
    if (!open.announced) announce(open);
    const id = open.item['id'];
    const where = { item_id: id, output_index: open.outputIndex };
    const itemStatus = status === 'incomplete' ? 'incomplete' : 'completed';
    if (open.kind === 'function_call') {
      open.item['arguments'] = open.text;
      open.item['status'] = itemStatus;
      emit(
        'response.function_call_arguments.done',
        Object.assign({}, where, { name: open.item['name'], arguments: open.text }),
      );
    } else if (open.kind === 'message') {
      const part = { type: 'output_text', text: open.text, annotations: [], logprobs: [] };
      emit(
        'response.output_text.done',
        Object.assign({}, where, { content_index: 0, text: open.text, logprobs: [] }),
      );
      emit('response.content_part.done', Object.assign({}, where, { content_index: 0, part }));
      open.item['content'] = [part];
      open.item['status'] = itemStatus;
    } else {
      const part = { type: 'reasoning_text', text: open.text };
      emit('response.reasoning_text.done', Object.assign({}, where, { content_index: 0, text: open.text }));
      emit('response.content_part.done', Object.assign({}, where, { content_index: 0, part }));
      open.item['content'] = [part];
    }
    emit('response.output_item.done', { output_index: open.outputIndex, item: structuredClone(open.item) });
  };

  /** The open message or reasoning item of `kind`, closing the other one first. */
  const textItem = (kind: 'message' | 'reasoning'): OpenItem => {
    if (current?.kind === kind) return current;
    if (current !== undefined) close(current);
    const item: JsonObject =
      kind === 'message'
        ? { id: `msg_${base()}`, type: 'message', role: 'assistant', status: 'in_progress', content: [] }
        : { id: `rs_${base()}`, type: 'reasoning', summary: [], content: [] };
    current = openItem(kind, item);
    announce(current);
    return current;
  };

  const addText = (kind: 'message' | 'reasoning', delta: string): void => {
    if (delta === '') return;
    const open = textItem(kind);
    open.text += delta;
    const type = kind === 'message' ? 'response.output_text.delta' : 'response.reasoning_text.delta';
    const fields: JsonObject = {
      item_id: open.item['id'],
      output_index: open.outputIndex,
      content_index: 0,
      delta,
    };
    if (kind === 'message') fields['logprobs'] = [];
    emit(type, fields);
  };

  const addToolCall = (delta: ToolCallDelta): void => {
    const index = typeof delta.index === 'number' ? delta.index : calls.size;
    let open = calls.get(index);
    if (open === undefined) {
      if (current !== undefined) close(current);
      current = undefined;
      open = openItem('function_call', {
        id: `fc_${base()}_${calls.size}`,
        type: 'function_call',
        status: 'in_progress',
        arguments: '',
        call_id: delta.id ?? `call_${base()}_${calls.size}`,
        name: '',
      });
      calls.set(index, open);
    }
    if (delta.id !== undefined && !open.announced) open.item['call_id'] = delta.id;
    if (delta.function?.name !== undefined && !open.announced)
      open.item['name'] = `${String(open.item['name'])}${delta.function.name}`;
    const fragment = delta.function?.arguments ?? '';
    if (fragment === '') return;
    if (!open.announced) announce(open);
    open.text += fragment;
    emit('response.function_call_arguments.delta', {
      item_id: open.item['id'],
      output_index: open.outputIndex,
      delta: fragment,
    });
  };

  const addContent = (content: string): void => {
    const split = splitter.push(content);
    addText('reasoning', split.reasoning);
    addText('message', split.text);
  };

  const take = (): ResponseEvent[] => {
    const taken = events;
    events = [];
    return taken;
  };

  const closeAll = (): void => {
    const rest = splitter.flush();
    addText('reasoning', rest.reasoning);
    addText('message', rest.text);
    if (current !== undefined) close(current);
    current = undefined;
    for (const open of [...calls.values()].sort((a, b) => a.outputIndex - b.outputIndex)) close(open);
    calls.clear();
  };

  return {
    push(chunk) {
      start(chunk);
      if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage;
      for (const choice of chunk.choices ?? []) {
        if ((choice.index ?? 0) !== 0) continue;
        const delta = choice.delta;
        if (typeof delta?.reasoning_content === 'string') addText('reasoning', delta.reasoning_content);
        if (typeof delta?.reasoning === 'string') addText('reasoning', delta.reasoning);
        if (typeof delta?.content === 'string') addContent(delta.content);
        for (const call of Array.isArray(delta?.tool_calls) ? delta.tool_calls : []) addToolCall(call);
        if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
      }
      return take();
    },
    finish() {
      start(undefined);
      const end = toResponseEnd(finishReason);
      status = end.status;
      incompleteDetails = end.incompleteDetails;
      closeAll();
      // a client looks for a message: an answer with no output at all gets an empty one
      if (output.length === 0) close(textItem('message'));
      current = undefined;
      emit(status === 'completed' ? 'response.completed' : 'response.incomplete', { response: snapshot() });
      return take();
    },
    fail(error) {
      start(undefined);
      status = 'failed';
      failure = { code: error.code, message: error.message };
      emit('error', { code: error.code, message: error.message, param: error.param });
      emit('response.failed', { response: snapshot() });
      return take();
    },
    response: snapshot,
  };
}
