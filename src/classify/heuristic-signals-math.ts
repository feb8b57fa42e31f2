import { anyOf, anyWord, type PatternSignal } from './heuristic-signal.js';

/** Verbs that ask for a proof; the keyword is matched first so the context check runs only on candidates. */
const PROOF_VERBS =
  'prove|disprove|show that|demonstrate that|give (?:a|an) (?:rigorous |formal )?proof|write (?:a|the) proof|sketch (?:a|the) proof';
const IMPERATIVE_CONTEXT =
  '(?:^|[.!?:;]\\s*|\\n|\\b(?:please|then|and|to|you|now|also|must|should|how to|how do i|how would you|how can i)\\s+)';

/** Arithmetic to olympiad: word problems pull to MODERATE/COMPLEX, proofs and formal math to EXPERT. */
export const MATH_SIGNALS: readonly PatternSignal[] = [
  {
    name: 'math_notation',
    scope: 'full',
    weights: [-0.9, 0.1, 0.6, 0.6],
    patterns: {
      any: anyOf([
        '\\$[^$\\n]{1,200}\\$|\\\\\\(|\\\\\\[|\\\\(?:frac|sqrt|sum|int|lim|infty|cdot|leq?|geq?|binom|mathbb|mathcal|alpha|beta|theta|pi)\\b',
        '\\^\\{|_\\{|\\b[a-z]\\^\\d|√|∑|∫|≤|≥|≠|∞|∈|⊂|∀|∃',
      ]),
    },
  },
  {
    name: 'math_word_problem',
    weights: [0.2, 0.7, 0.5, -0.4],
    patterns: {
      en: anyWord([
        'how many|how much|what is the (?:total|sum|product|difference|value|probability|area|volume|perimeter|remainder|average|ratio)',
        'find the (?:value|number|sum|area|remainder|smallest|largest|maximum|minimum|probability|length)|solve for|what percent',
      ]),
      ko: anyOf([
        '몇 ?(?:개|명|권|마리|살|시간|번|원|킬로|미터|cm|m)',
        '얼마',
        '구하(?:시오|세요|라)',
        '계산',
        '합은',
        '넓이',
        '부피',
        '확률',
      ]),
      zh: anyOf(['多少', '几(?:个|只|本|人|天|次|元|岁|米|千克)', '求', '计算', '面积', '体积', '概率']),
      ja: anyOf(['いくつ', '何(?:個|人|本|枚|円|cm|m|倍)', '求めな', '計算', '面積', '体積', '確率']),
    },
  },
  {
    name: 'math_vocab',
    weights: [-0.6, 0.2, 0.6, 0.4],
    patterns: {
      en: anyWord([
        'equations?|polynomials?|integers?|primes?|divisible|divisors?|quadratic|derivative|integral|matrix|matrices|vectors?',
        'probability|sequence|series|triangle|circle|radius|angle|real numbers|log|sin|cos|tan|digits|inequality|parabola',
        'geometric|arithmetic sequence|function f|f\\(x\\)',
      ]),
      ko: anyOf([
        '방정식',
        '다항식',
        '정수',
        '소수',
        '함수',
        '미분',
        '적분',
        '행렬',
        '벡터',
        '수열',
        '삼각형',
        '반지름',
        '부등식',
      ]),
      zh: anyOf([
        '方程',
        '多项式',
        '整数',
        '质数',
        '素数',
        '函数',
        '导数',
        '积分',
        '矩阵',
        '向量',
        '数列',
        '三角形',
        '半径',
        '不等式',
      ]),
      ja: anyOf([
        '方程式',
        '多項式',
        '整数',
        '素数',
        '関数',
        '微分',
        '積分',
        '行列',
        'ベクトル',
        '数列',
        '三角形',
        '半径',
        '不等式',
      ]),
    },
  },
  {
    name: 'proof_request',
    weights: [-2, -1.2, 0.3, 2],
    floor: 'EXPERT',
    patterns: {
      /** Imperative only ("prove", "show that" after a sentence start, "please", "to", "you"...), so "we show that" in an abstract does not count. */
      en: new RegExp(
        `\\b(?:${PROOF_VERBS})\\b(?<=${IMPERATIVE_CONTEXT}(?:${PROOF_VERBS}))|\\bproof (?:that|of the|of why)\\b`,
      ),
      ko: anyOf(['증명(?:해|하시오|하라|하세요|하여|을 해|을 써)', '임을 보이(?:시오|라|세요)']),
      zh: anyOf(['(?<![被已未])证明(?!了|过)', '求证']),
      ja: anyOf(['証明(?:せよ|して|しなさい|を書|してみ)', 'を示せ', 'ことを示して']),
    },
  },
  {
    name: 'proof_vocab',
    weights: [-1.2, -0.6, 0.5, 1.2],
    patterns: {
      en: anyWord([
        'proof|lemma|theorem|corollary|conjecture|if and only if|iff|q\\.e\\.d|axiom',
        'without loss of generality|by induction|by contradiction|rigorous(?:ly)?',
      ]),
      ko: anyOf(['증명', '정리', '보조정리', '추측', '엄밀']),
      zh: anyOf(['证明', '定理', '引理', '猜想', '严格']),
      ja: anyOf(['証明', '定理', '補題', '予想', '厳密']),
    },
  },
  {
    name: 'competition_math',
    weights: [-1.6, -0.7, 0.6, 1.4],
    floor: 'COMPLEX',
    patterns: {
      en: anyWord([
        'olympiad|imo|aime|amc ?(?:8|10|12)?|putnam|usamo|hmmt|math competition',
        'find all (?:positive |real |natural |nonnegative )?(?:integers|functions|pairs|triples|primes|values|n|real numbers)',
        'ordered (?:pairs|triples)|positive integers? \\$?n\\$? such that|relatively prime|last (?:two|three) digits',
        'number of (?:ways|positive divisors|subsets|ordered|integers)|greatest common divisor|least common multiple',
      ]),
      any: anyOf(['\\\\(?:mathbb|binom|lfloor|rfloor|equiv|pmod|dots|ldots|cdots)\\b']),
      ko: anyOf(['올림피아드', '경시', '모든 양의 정수', '순서쌍']),
      zh: anyOf(['竞赛', '奥数', '奥林匹克', '求所有', '正整数', '有序数对']),
      ja: anyOf(['数学オリンピック', 'すべての正の整数', '正の整数', '順序対']),
    },
  },
  {
    name: 'formal_math',
    scope: 'full',
    weights: [-2.5, -1.8, 0.2, 2.2],
    floor: 'EXPERT',
    patterns: {
      any: anyOf([
        '\\blean ?4\\b|\\bin lean\\b|\\bmathlib\\b|\\bisabelle\\b|\\bcoq\\b|\\bagda\\b',
        "theorem [\\w.']+\\s*[({:]|:=\\s*by\\b|\\bby (?:simp|norm_num|linarith|nlinarith|omega|decide|aesop)\\b|⊢",
      ]),
    },
  },
  {
    name: 'advanced_math',
    weights: [-1.6, -0.8, 0.4, 1.3],
    patterns: {
      en: anyWord([
        'topolog(?:y|ical|ies)|homeomorph\\w*|homomorphisms?|isomorphi(?:c|sm)|subgroups?|abelian|group of order|galois',
        'field extension|manifolds?|hilbert space|banach|measurable|lebesgue|eigen(?:values?|vectors?)|vector spaces?',
        'linear (?:operator|map|transformation)|metric space|compact (?:set|space|subset)|uniformly|cauchy|riemann',
        'holomorphic|sigma-algebra|countabl[ey]|uncountabl[ey]|bijection|injective|surjective|irreducible|finite fields?',
        'normal subgroup|ideal of|integral domain|modular forms?|differentiable|continuous function',
      ]),
      ko: anyOf(['위상', '동형', '부분군', '정규부분군', '다양체', '고유값', '벡터 ?공간', '수렴']),
      zh: anyOf([
        '拓扑',
        '同态',
        '同构',
        '子群',
        '正规子群',
        '阿贝尔',
        '流形',
        '希尔伯特',
        '特征值',
        '向量空间',
        '紧致',
        '一致收敛',
        '中值定理',
      ]),
      ja: anyOf(['位相', '同型', '部分群', '正規部分群', '多様体', '固有値', 'ベクトル空間', '一様収束']),
    },
  },
];
