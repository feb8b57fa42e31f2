import { describe, expect, it } from 'vitest';
import { toClassifyInput } from './classify-input.js';
import { SCOPE_SIGNAL_EXAMPLES } from './heuristic-signals-scope.examples.js';
import { PATTERN_SIGNALS, scoreHeuristics } from './heuristics.js';

type Language = 'en' | 'ko' | 'zh' | 'ja';
const LANGUAGES: readonly Language[] = ['en', 'ko', 'zh', 'ja'];

/** A sentence per language that fires no signal; the default negative case. */
const NEUTRAL: Record<Language, string> = {
  en: 'The old lighthouse keeper painted the fence blue last summer.',
  ko: '등대지기는 지난여름 울타리를 파란색으로 칠했다.',
  zh: '老灯塔看守人去年夏天把栅栏漆成了蓝色。',
  ja: '灯台守は去年の夏に柵を青く塗った。',
};

/** One positive example per signal and language (language-independent signals: the language around it). */
const POSITIVE: Record<string, Record<Language, string>> = {
  greeting: { en: 'hello there', ko: '안녕하세요!', zh: '你好呀', ja: 'こんにちは' },
  small_talk: { en: 'how are you today', ko: '오늘 뭐해?', zh: '你是谁？', ja: 'お元気ですか' },
  conversion: {
    en: 'convert 5 miles to km',
    ko: '100달러 환율 알려줘',
    zh: '1英寸等于多少厘米',
    ja: '30ドルを円に換算して',
  },
  wh_question: {
    en: 'who wrote the great gatsby',
    ko: '이 책의 저자는 누구?',
    zh: '这本书的作者是谁',
    ja: '作者は誰？',
  },
  fact_question: {
    en: 'when did the berlin wall fall',
    ko: '한국 전쟁은 언제였어?',
    zh: '长城是什么时候建的',
    ja: '東京の首都はいつですか',
  },
  explanation_question: {
    en: 'why is the sky blue',
    ko: '하늘은 왜 파란가요',
    zh: '天空为什么是蓝色的',
    ja: '空はなぜ青いの',
  },
  personal_context: {
    en: 'i need a new hobby',
    ko: '나는 요즘 피곤하다',
    zh: '我想换一份工作',
    ja: '私は猫が好きです',
  },
  trivial_formatting: {
    en: 'sort these words: pear, apple, fig',
    ko: '단어들을 가나다순으로 정렬해 줘',
    zh: '把这些词排序',
    ja: '単語をあいうえお順に並べて',
  },
  definition: {
    en: 'define serendipity',
    ko: '세렌디피티 뜻이 뭐야',
    zh: '内卷是什么意思',
    ja: 'セレンディピティの意味は',
  },
  time_weather: {
    en: 'what is the weather in paris',
    ko: '내일 서울 날씨 어때',
    zh: '明天北京天气怎么样',
    ja: '明日の東京の天気は',
  },
  assistant_command: {
    en: 'set an alarm for 7am',
    ko: '7시에 알람 맞춰줘',
    zh: '帮我设置闹钟',
    ja: '7時にアラームをセットして',
  },
  one_step_arithmetic: {
    en: 'what is 12 times 7',
    ko: '12 곱하기 7은?',
    zh: '12乘以7等于多少',
    ja: '12掛ける7は',
  },
  translate_verb: {
    en: 'translate this into french',
    ko: '이 문장을 영어로 번역해 줘',
    zh: '把这句话翻译成英文',
    ja: 'この文を英語に翻訳して',
  },
  summarize_verb: {
    en: 'summarize this article',
    ko: '이 기사를 요약해 줘',
    zh: '总结一下这篇文章',
    ja: 'この記事を要約して',
  },
  rewrite_verb: {
    en: 'rephrase this sentence',
    ko: '맞춤법 좀 고쳐줘',
    zh: '帮我润色这段话',
    ja: 'この文を添削して',
  },
  creative_writing: {
    en: 'write a poem about rain',
    ko: '비에 대한 시를 써 줘',
    zh: '写一首关于雨的诗',
    ja: '雨についての詩を書いて',
  },
  roleplay: {
    en: 'act as a travel guide',
    ko: '면접관 역할을 해 줘',
    zh: '请扮演一名面试官',
    ja: '面接官になりきって',
  },
  advice: {
    en: 'should i learn piano or guitar',
    ko: '피아노를 배울까 기타를 배울까',
    zh: '我该怎么办',
    ja: 'どうすればいいですか',
  },
  brainstorm_list: {
    en: 'brainstorm names for a bakery',
    ko: '빵집 이름 아이디어 좀 줘',
    zh: '给面包店想几个点子',
    ja: 'パン屋の名前のアイデアをください',
  },
  format_constraint: {
    en: 'answer in at least 300 words',
    ko: '200 단어로 써 줘',
    zh: '不超过100字',
    ja: '箇条書きで答えて',
  },
  classify_verb: {
    en: 'classify these reviews by sentiment',
    ko: '이 리뷰들을 분류해 줘',
    zh: '把这些评论分类',
    ja: 'このレビューを分類して',
  },
  explain_request: {
    en: 'explain how vaccines work',
    ko: '백신 원리를 설명해 줘',
    zh: '解释一下疫苗的原理',
    ja: 'ワクチンの仕組みを教えて',
  },
  code_block: {
    en: 'fix this:\n```js\nlet a = 1\n```',
    ko: '이 코드 봐 줘\n```py\nx = 1\n```',
    zh: '看看这段\n```go\nx := 1\n```',
    ja: 'これを見て\n```rb\nx = 1\n```',
  },
  code_syntax: {
    en: 'def add(a, b):\n    return a + b',
    ko: '이 함수요\ndef add(a, b):\n    return a + b',
    zh: '这一行\nimport numpy as np',
    ja: 'この行\nconsole.log(x)',
  },
  code_vocab: {
    en: 'which python library is best',
    ko: '파이썬 라이브러리 추천',
    zh: '这个函数怎么用',
    ja: 'このコードは何',
  },
  code_request: {
    en: 'write a python function that reverses a string',
    ko: '문자열을 뒤집는 함수를 작성해 줘',
    zh: '用python写一个排序函数',
    ja: 'ソート関数を実装して',
  },
  stack_trace: {
    en: 'Traceback (most recent call last):\n  File "a.py", line 1',
    ko: '에러가 나요\nTypeError: x is not a function',
    zh: '报这个\nsegmentation fault (core dumped)',
    ja: 'エラーです\nException in thread "main" java.lang.NullPointerException',
  },
  code_chore: {
    en: 'add docstrings to this function',
    ko: '이 함수에 주석 좀 달아줘',
    zh: '给这段代码加上注释',
    ja: 'この関数にコメントを追加して',
  },
  debug_request: {
    en: 'my script does not work',
    ko: '실행하면 에러가 나요',
    zh: '运行就报错',
    ja: '実行するとエラーが出ます',
  },
  refactor: {
    en: 'refactor this class',
    ko: '이 코드 리팩토링해 줘',
    zh: '帮我重构这个模块',
    ja: 'このクラスをリファクタリングして',
  },
  system_design: {
    en: 'design a scalable chat service',
    ko: '채팅 서비스 아키텍처를 잡아 줘',
    zh: '设计一个分布式系统',
    ja: 'マイクロサービスの設計',
  },
  multi_file_context: {
    en: '#file:src/a.ts #file:src/b.ts split this service',
    ko: '@file order/service.py 리팩터링',
    zh: '#file:order/payment.py 看一下',
    ja: '@file legacy/db.php を整理して',
  },
  leetcode_format: {
    en: 'Example 1:\nInput: nums = [1,2]\nOutput: 3',
    ko: '제약 조건: n <= 100',
    zh: '示例 1：输入：nums = [1]',
    ja: '制約：1 <= n <= 100',
  },
  contest_format: {
    en: 'The first line contains an integer n.',
    ko: '입력 형식: 첫 줄에 n',
    zh: '输入格式：第一行一个整数',
    ja: '入力形式：1行目に整数',
  },
  algorithm_vocab: {
    en: 'what is the time complexity of quicksort',
    ko: '퀵정렬의 시간 복잡도는',
    zh: '快速排序的时间复杂度',
    ja: 'クイックソートの計算量',
  },
  math_notation: {
    en: 'simplify $x^2 + 2x$',
    ko: '$\\frac{1}{2}$를 계산',
    zh: '化简 $\\sqrt{2}$',
    ja: '$x^2$ を微分',
  },
  math_word_problem: {
    en: 'how many apples are left',
    ko: '사과는 몇 개 남았나요',
    zh: '还剩多少个苹果',
    ja: 'りんごはいくつ残りますか',
  },
  math_vocab: {
    en: 'solve the quadratic equation',
    ko: '이 방정식을 풀어',
    zh: '解这个方程',
    ja: 'この方程式を解いて',
  },
  proof_request: {
    en: 'prove that sqrt(2) is irrational',
    ko: '루트 2가 무리수임을 증명해 줘',
    zh: '证明根号2是无理数',
    ja: '√2が無理数であることを証明せよ',
  },
  proof_vocab: {
    en: 'state the lemma',
    ko: '이 정리는 유명하다',
    zh: '这个定理很有名',
    ja: 'この定理は有名だ',
  },
  competition_math: {
    en: 'find all positive integers n such that n+1 is prime',
    ko: '수학 올림피아드 문제',
    zh: '这是一道奥数题',
    ja: '数学オリンピックの問題',
  },
  formal_math: {
    en: 'theorem foo : 1 + 1 = 2 := by norm_num',
    ko: 'lean 4로 작성해 줘',
    zh: '用 isabelle 形式化',
    ja: 'coq で形式化して',
  },
  advanced_math: {
    en: 'is every compact subset of a metric space closed',
    ko: '고유값을 구하라',
    zh: '求矩阵的特征值',
    ja: '固有値を求めよ',
  },
  multi_step: {
    en: 'explain step by step',
    ko: '단계별로 설명해 줘',
    zh: '请分步骤说明',
    ja: '手順を教えて',
  },
  numbered_requirements: {
    en: '1. red\n2. green\n3. blue\n',
    ko: '1. 사과\n2. 배\n3. 귤\n',
    zh: '1. 苹果\n2. 梨\n3. 橘子\n',
    ja: '1. りんご\n2. なし\n3. みかん\n',
  },
  constraint_markers: {
    en: 'make sure it handles empty input',
    ko: '반드시 한국어로 답해',
    zh: '必须用中文回答',
    ja: '必ず日本語で答えて',
  },
  analysis_request: {
    en: 'compare react and vue',
    ko: '두 정책을 비교해 줘',
    zh: '分析一下这个市场',
    ja: '二つの案を比較して',
  },
  logic_puzzle: {
    en: 'solve this riddle',
    ko: '이 퍼즐 풀어 봐',
    zh: '这道逻辑题怎么做',
    ja: 'このパズルを解いて',
  },
  data_extraction: {
    en: 'extract all dates from this text',
    ko: '이메일 주소를 추출해 줘',
    zh: '提取文中的人名',
    ja: '日付を抽出して',
  },
  planning_request: {
    en: 'make an itinerary for rome',
    ko: '여행 일정 짜 줘',
    zh: '帮我做个旅行计划',
    ja: '旅行のスケジュールを立てて',
  },
  research_level: {
    en: 'derive the equations of motion',
    ko: '양자 얽힘 논문 정리',
    zh: '量子纠缠的研究现状',
    ja: '量子もつれの論文',
  },
  expert_domain: {
    en: 'what does case law say on fiduciary duty',
    ko: '감별 진단을 해 줘',
    zh: '给出鉴别诊断',
    ja: '鑑別診断を挙げて',
  },
  critical_review: {
    en: 'critique this paper',
    ko: '비판적으로 평가해 줘',
    zh: '按审稿人标准挑刺',
    ja: '批判的に検討して',
  },
  scale_requirements: {
    en: 'handle 50k qps with exactly-once delivery',
    ko: '피크 tps 5만을 처리',
    zh: '支持千万级日活',
    ja: '同時リクエスト100万件',
  },
  best_quality: {
    en: 'give me an expert-level answer',
    ko: '전문가 수준으로 답해',
    zh: '给出专家级的回答',
    ja: '専門家レベルで答えて',
  },
  ...SCOPE_SIGNAL_EXAMPLES,
};

/** Near misses: texts that look like the signal but must not fire it. */
const NEAR_MISSES: Record<string, readonly string[]> = {
  proof_request: [
    "who proved fermat's last theorem?",
    'In this paper we show that the method works.',
    '리만 가설은 아직 증명 안 됐죠?',
    '哥德巴赫猜想被证明了吗',
    '誰が証明した？',
  ],
  code_syntax: ['Select the oldest person from the list.', 'Let x = 5 and y = 3. What is x + y?'],
  small_talk: ['Find the smallest perfect square above 50.'],
  expert_domain: ['Did you see the game last night?'],
  greeting: ['Write a story where the hero says hello at the end.'],
  word_lookup: ['Write a spell-checker in Python.'],
  settled_question: ['Prove that the problem is solved by induction.'],
  contest_bounds: ['Keep the total under 10 items.'],
};

describe('small_word_problem', () => {
  it('fires on a one- or two-step school word problem in every language', () => {
    for (const text of [
      'Josh had 21 marbles in his collection. He found 7 marbles. How many marbles does he have now?',
      '사과가 12개 있었는데 5개를 먹었습니다. 남은 사과는 몇 개입니까?',
      '树上一共有32个桃子，猴哥哥摘了13个，树上还剩多少个桃子？',
      'りんごが12個あります。5個食べると、残りはいくつですか？',
    ]) {
      expect(signalsOf(text), text).toContain('small_word_problem');
    }
  });

  it('does not fire on competition math, many numbers or a long problem', () => {
    for (const text of [
      'How many ordered pairs $(a,b)$ of integers satisfy $|a + bi| \\le 5$?',
      'A shop sells 3 pens for 2 dollars, 5 pencils for 1 dollar and 4 erasers for 3 dollars. How many items can I buy with 20 dollars?',
      `${'Tom has 3 boxes of 12 pencils. '.repeat(10)}How many pencils are there?`,
      '주사위 3개를 동시에 던졌을 때 눈의 합이 10일 확률은 얼마인가요?',
    ]) {
      expect(signalsOf(text), text).not.toContain('small_word_problem');
    }
  });
});

describe('architecture_breadth', () => {
  it('fires on a design that spans caches, queues, replicas and regions', () => {
    const design =
      'Design checkout for 3 regions: a Redis cache in front of Postgres replicas, a Kafka queue, and idempotent payment calls.';
    expect(signalsOf(design)).toContain('architecture_breadth');
  });

  it('does not fire on a question about one component', () => {
    expect(signalsOf('How do I clear the Redis cache in my Django app?')).not.toContain(
      'architecture_breadth',
    );
  });
});

function signalsOf(text: string): readonly string[] {
  return scoreHeuristics(toClassifyInput({ messages: [{ role: 'user', content: text }] })).signals;
}

describe('heuristic pattern signals', () => {
  it('has a positive example in every language for every pattern signal', () => {
    const missing = PATTERN_SIGNALS.flatMap(({ name }) =>
      LANGUAGES.filter((language) => POSITIVE[name]?.[language] === undefined).map(
        (language) => `${name}.${language}`,
      ),
    );
    expect(missing).toEqual([]);
  });

  it('fires no pattern signal on the neutral sentences', () => {
    const patternNames = new Set(PATTERN_SIGNALS.map(({ name }) => name));
    for (const language of LANGUAGES) {
      expect(
        signalsOf(NEUTRAL[language]).filter((name) => patternNames.has(name)),
        language,
      ).toEqual([]);
    }
  });

  for (const { name } of PATTERN_SIGNALS) {
    describe(name, () => {
      for (const language of LANGUAGES) {
        it(`fires on a ${language} example and not on a ${language} sentence without it`, () => {
          const positive = POSITIVE[name]?.[language] ?? '';
          expect(signalsOf(positive), positive).toContain(name);
          expect(signalsOf(NEUTRAL[language])).not.toContain(name);
        });
      }
      for (const text of NEAR_MISSES[name] ?? []) {
        it(`does not fire on the near miss ${JSON.stringify(text)}`, () => {
          expect(signalsOf(text)).not.toContain(name);
        });
      }
    });
  }
});
