/** Positive examples per language for the scope signals, used by heuristic-signals.test.ts. */
export const SCOPE_SIGNAL_EXAMPLES: Record<string, Record<'en' | 'ko' | 'zh' | 'ja', string>> = {
  short_answer_request: {
    en: 'In one sentence, what is inflation?',
    ko: '엔트로피가 뭐예요? 한 문장으로 알려줘',
    zh: '用一句话解释通货膨胀',
    ja: '一言で言うとインフレとは？',
  },
  word_lookup: {
    en: 'how do u spell accomodate',
    ko: '이 단어 맞춤법 맞아?',
    zh: '这个单词怎么拼？',
    ja: 'この単語のスペルは？',
  },
  settled_question: {
    en: 'Has the Riemann hypothesis been proven yet?',
    ko: '리만 가설 아직 증명 안 된 거 맞죠?',
    zh: '哥德巴赫猜想被证明了没？',
    ja: 'ポアンカレ予想は誰が解いたの？',
  },
  contest_bounds: {
    en: 'Given an array of n integers (1 <= n <= 10^5), count the pairs.',
    ko: '길이 N(≤ 2×10⁵)인 배열의 구간 쿼리를 처리하세요.',
    zh: '给定长度为 n 的数组，n ≤ 2×10^5，求答案。',
    ja: '長さ N（≤ 2×10⁵）の文字列 S が与えられます。',
  },
  functional_equation: {
    en: 'Find all functions f: ℝ → ℝ such that f(x+y) = f(x) + f(y) for all real x, y.',
    ko: '다음 함수방정식을 만족하는 함수를 모두 구하시오.',
    zh: '对任意实数 x, y 满足 f(x+y)=f(x)f(y)，求 f。',
    ja: '次の関数方程式を満たす関数をすべて求めよ。',
  },
};
