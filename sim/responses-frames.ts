import type { ChatPlan, ChoicePlan } from './chat-plan.js';
import type { ResponseMeta } from './chat-stream-frames.js';
import type { StreamFrames } from './stream-frames.js';

type JsonObject = Record<string, unknown>;

/** One output item of the reply: its final form, and the tokens streamed into it. */
interface PlannedItem {
  item: JsonObject;
  kind: 'reasoning' | 'message' | 'function_call';
  tokens: string[];
  /** Function calls: the name and call id are known when the item is added. */
  text: string;
}

function toItems(choice: ChoicePlan, meta: ResponseMeta): PlannedItem[] {
  const base = meta.id.replace(/^resp_/, '');
  const items: PlannedItem[] = [];
  const status = choice.finishReason === 'length' ? 'incomplete' : 'completed';
  if (choice.reasoning.length > 0) {
    const text = choice.reasoning.join('');
    items.push({
      kind: 'reasoning',
      tokens: choice.reasoning,
      text,
      item: { id: `rs_${base}`, type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text }] },
    });
  }
  if (choice.content.length > 0 || choice.toolCalls.length === 0) {
    const text = choice.content.join('');
    items.push({
      kind: 'message',
      tokens: choice.content,
      text,
      item: {
        id: `msg_${base}`,
        type: 'message',
        role: 'assistant',
        status,
        content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
      },
    });
  }
  choice.toolCalls.forEach((call, index) => {
    items.push({
      kind: 'function_call',
      tokens: call.fragments,
      text: call.arguments,
      item: {
        id: `fc_${base}_${index}`,
        type: 'function_call',
        call_id: call.id,
        name: call.name,
        arguments: call.arguments,
        status: 'completed',
      },
    });
  });
  return items;
}

/** The whole Response, as vLLM's ResponsesResponse serializes it. */
function toResponse(plan: ChatPlan, meta: ResponseMeta, state: { done: boolean }): JsonObject {
  const choice = plan.choices[0];
  const incomplete = choice?.finishReason === 'length';
  const completion = plan.completionTokens;
  return {
    id: meta.id,
    object: 'response',
    created_at: meta.created,
    status: state.done ? (incomplete ? 'incomplete' : 'completed') : 'in_progress',
    error: null,
    incomplete_details: state.done && incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    model: meta.model,
    output: state.done && choice !== undefined ? toItems(choice, meta).map((planned) => planned.item) : [],
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    store: false,
    usage: state.done
      ? {
          input_tokens: meta.promptTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: completion,
          output_tokens_details: { reasoning_tokens: choice?.reasoning.length ?? 0 },
          total_tokens: meta.promptTokens + completion,
        }
      : null,
  };
}

/** The opening and closing events of one item, and one delta per token. */
function toItemEvents(
  planned: PlannedItem,
  outputIndex: number,
): { open: JsonObject[]; deltas: JsonObject[]; close: JsonObject[] } {
  const id = planned.item['id'];
  const where = { item_id: id, output_index: outputIndex };
  if (planned.kind === 'function_call') {
    return {
      open: [
        {
          type: 'response.output_item.added',
          output_index: outputIndex,
          item: { ...planned.item, arguments: '', status: 'in_progress' },
        },
      ],
      deltas: planned.tokens.map((delta) => ({
        type: 'response.function_call_arguments.delta',
        ...where,
        delta,
      })),
      close: [
        {
          type: 'response.function_call_arguments.done',
          ...where,
          arguments: planned.text,
          name: planned.item['name'],
        },
        { type: 'response.output_item.done', output_index: outputIndex, item: planned.item },
      ],
    };
  }
  const message = planned.kind === 'message';
  const emptyPart = message
    ? { type: 'output_text', text: '', annotations: [], logprobs: [] }
    : { type: 'reasoning_text', text: '' };
  const part = message
    ? { ...emptyPart, text: planned.text }
    : { type: 'reasoning_text', text: planned.text };
  const opened = message
    ? { ...planned.item, status: 'in_progress', content: [] }
    : { ...planned.item, content: [] };
  const deltaType = message ? 'response.output_text.delta' : 'response.reasoning_text.delta';
  const doneType = message ? 'response.output_text.done' : 'response.reasoning_text.done';
  const extra = message ? { logprobs: [] } : {};
  return {
    open: [
      { type: 'response.output_item.added', output_index: outputIndex, item: opened },
      { type: 'response.content_part.added', ...where, content_index: 0, part: emptyPart },
    ],
    deltas: planned.tokens.map((delta) => ({ type: deltaType, ...where, content_index: 0, delta, ...extra })),
    close: [
      { type: doneType, ...where, content_index: 0, text: planned.text, ...extra },
      { type: 'response.content_part.done', ...where, content_index: 0, part },
      { type: 'response.output_item.done', output_index: outputIndex, item: planned.item },
    ],
  };
}

/**
 * Builds the stream vLLM's /v1/responses writes: `event:` and `data:` lines, a `sequence_number` on
 * every event, response.created and response.in_progress first, per item its opening events with
 * its first token, one delta per token, its closing events before the next item's, then
 * response.completed (response.incomplete at max_output_tokens) and no `[DONE]`.
 */
export function toResponsesStreamFrames(plan: ChatPlan, meta: ResponseMeta): StreamFrames {
  let sequence = 0;
  const frame = (events: readonly JsonObject[]): string =>
    events
      .map((event) => {
        const numbered = { ...event, sequence_number: sequence };
        sequence += 1;
        return `event: ${String(event['type'])}\ndata: ${JSON.stringify(numbered)}\n\n`;
      })
      .join('');
  const head = [
    frame([
      { type: 'response.created', response: toResponse(plan, meta, { done: false }) },
      { type: 'response.in_progress', response: toResponse(plan, meta, { done: false }) },
    ]),
  ];
  const choice = plan.choices[0];
  const content: string[] = [];
  let pending: JsonObject[] = [];
  (choice === undefined ? [] : toItems(choice, meta)).forEach((planned, outputIndex) => {
    const events = toItemEvents(planned, outputIndex);
    const [first, ...rest] = events.deltas;
    content.push(frame([...pending, ...events.open, ...(first === undefined ? [] : [first])]));
    for (const delta of rest) content.push(frame([delta]));
    pending = events.close;
  });
  const done = toResponse(plan, meta, { done: true });
  const endType = done['status'] === 'incomplete' ? 'response.incomplete' : 'response.completed';
  const tail = [frame([...pending, { type: endType, response: done }])];
  const empty = `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', item_id: 'msg_empty', output_index: 0, content_index: 0, delta: '', logprobs: [], sequence_number: 0 })}\n\n`;
  return { head, content, tail, empty, done: '' };
}

/** The non-stream Response body. */
export function toResponsesResponseBody(plan: ChatPlan, meta: ResponseMeta): string {
  return JSON.stringify(toResponse(plan, meta, { done: true }));
}
