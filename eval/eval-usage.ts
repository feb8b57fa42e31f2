import { DEFAULT_CONCURRENCY, DEFAULT_WORST, EVAL_MODES } from './eval-options.js';

export const EVAL_USAGE = `usage: npm run eval -- [labeled.jsonl] [options]     (default file: eval/prompts.jsonl)

  --mode <mode>              one of ${EVAL_MODES.join(', ')} (default local)
  --compare <m1,m2,...>      run several modes on the same file and print them side by side
  --table <file.yaml>        routing table (default routing-tables/default.yaml), its classifier.rules applied
                             after the classifier (accuracy with and without them); repeat to compare tables
  --model <file.json>        learned model (default: the table's model_file, else the bundled one); repeat to compare
  --classifier-url <url>     OpenAI-compatible base URL (…/v1) of the classifier LLM, for cascade and llm
  --classifier-model <name>  served model name when the table names no classifier deployment (default Qwen/Qwen3-8B)
  --deadline-ms <ms>         replaces classifier.deadline_ms of the table
  --concurrency <n>          LLM calls in flight in cascade and llm modes (default ${DEFAULT_CONCURRENCY}; local modes run one at a time)
  --json <out.json>          write the report for machines
  --html <report.html>       write a self-contained report for people
  --min-accuracy <0..1>      exit 1 when exact accuracy is lower
  --max-under-routing <0..1> exit 1 when the under-routing rate is higher
  --strict                   exit 1 when a line is malformed
  --worst <n>                misroutes kept in the JSON and HTML reports (default ${DEFAULT_WORST})
  --curve                    cascade: the gate's cutoff against exact, under, over and LLM share (one LLM call a prompt)
  --thresholds <t1,t2,...>   the curve's cutoffs (default: confidence 0.30, 0.35 ... 1.00; value 0.5 ... 0)
  --gate <confidence|value>  the curve's gate, instead of the table's classifier.gate
  --quiet                    no progress bar
  -h, --help                 this text

exit codes: 0 pass, 1 a floor failed, 2 bad usage or input`;
