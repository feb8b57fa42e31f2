import { DEFAULT_TRAINING_CONFIG } from './model-fitting.js';
import {
  DEFAULT_HELD_OUT_SHARE,
  DEFAULT_MODEL_FILE,
  DEFAULT_REVIEWED_FILES,
  DEFAULT_TRAINING_FILES,
} from './training-inputs.js';

/** `npm run train -- --help`. */
export const TRAIN_USAGE = `usage: npm run train [-- [<labeled.jsonl>...] [options]]

With no files it reads ${DEFAULT_TRAINING_FILES.join(', ')}
with the reviewed labels ${DEFAULT_REVIEWED_FILES.join(', ')} and writes ${DEFAULT_MODEL_FILE}:
the shipped model, byte for byte. With files it reads exactly those (and --reviewed files, if given).
Lines with \`acceptable\` are gold, the others weak. A hash share of the gold examples and every
--holdout file are never trained on; k-fold cross-validation over the other gold examples fits the
temperature, the blend and the decision policy. Files under eval/ are refused as training data.

  --out <file>            model file to write (default ${DEFAULT_MODEL_FILE})
  --check                 retrain in memory and exit 1 unless the result equals --out byte for byte
  --write-held-out <file> write the held-out gold lines (JSONL, for npm run eval) and stop
  --holdout <file>        extra file scored but never trained on (repeatable)
  --reviewed <file>       reviewed labels ({"id","label"} per line) for weak examples (repeatable)
  --holdout-share <0..1>  share of the gold examples held out by a hash of the id (default ${DEFAULT_HELD_OUT_SHARE})
  --seed <n>  --folds <n> cross-validation seed and folds (default 1, 5)
  --fold-by <id|source>   folds by a hash of the id, or holding out whole sources (default id)
  --restarts <n>          SGD runs from different seeds, weights averaged (default ${DEFAULT_TRAINING_CONFIG.restarts})
  --hash-bits <n> --epochs <n> --l2 <x> --learning-rate <x>
  --gold-weight <x> --weak-weight <x> --weak-source-cap <x>   training settings
  --reviewed-weight <x> --reviewed-source-cap <x> --reviewed-share <0..1>
  --max-under <0..1>      under-routing the tuned decision must stay below (default 0.052)
  --tune-exclude-source <s>  gold examples of this source do not tune the decision (repeatable)
  --min-weight <x>        rows with smaller weights are not stored (default 0.002)
  --no-signals            n-grams only (ablation)     --no-blend   no learned/heuristic blend
  --no-cv                 skip cross-validation       --dry-run    do not write the model
  --by-source             held-out accuracy per source
  --oof <file>            write the out-of-fold predictions for error analysis
  --from-traffic <file>   classifier.learn records (JSONL) trained on as extra weak labels (repeatable);
                          prints --before's held-out metrics first (default: --out as it is)
  --traffic-weight <x> --traffic-label-share <0..1>   their loss weight and target share (default 5, 1)
  -h, --help              this text`;
