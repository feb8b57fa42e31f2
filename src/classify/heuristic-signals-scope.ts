import { anyOf, anyWord, type DerivedSignal, type PatternSignal } from './heuristic-signal.js';
import { createPatternSet } from './pattern-set.js';

/**
 * How much work a request asks for, independent of its topic (see RUBRIC.md): answer-size limits and
 * lookups about famous results pull towards SIMPLE; contest-size input bounds and functional equations
 * pull towards EXPERT.
 */
export const SCOPE_SIGNALS: readonly PatternSignal[] = [
  {
    name: 'short_answer_request',
    weights: [0.9, 0.2, -0.6, -1],
    patterns: {
      en: anyWord([
        'in (?:one|a single|1) (?:sentence|word|line)|one[- ]word answer|(?:answer )?(?:with )?(?:just )?yes or no|yes/no',
        'just (?:the|a) (?:number|answer|name|word)|only (?:the|a) (?:number|answer|name)|short answer|in a few words',
      ]),
      ko: anyOf(['한 ?문장으로', '한 ?단어로', '예/아니오', '예 또는 아니오', '짧게', '간단히만']),
      zh: anyOf(['一句话', '一个词', '是或否', '是还是否', '简短回答', '只回答']),
      ja: anyOf(['一言で', '一文で', 'はいかいいえ', '簡潔に', '短く']),
    },
  },
  {
    name: 'word_lookup',
    weights: [1, 0.1, -0.6, -1],
    patterns: {
      en: anyWord([
        'how (?:do|does|would|should) (?:you|u|i|one) spell|how to spell|spelling of|correct spelling|spell(?:ed)? (?:correctly|right)',
        'what language is (?:this|that|it)|synonyms? (?:of|for)|antonyms? (?:of|for)|opposite of|plural of|past tense of|rhymes? with',
      ]),
      ko: anyOf(['맞춤법', '철자', '반대말', '동의어', '유의어', '무슨 언어']),
      zh: anyOf(['怎么拼', '拼写', '反义词', '近义词', '同义词', '什么语言']),
      ja: anyOf(['スペル', '綴り', '反対語', '対義語', '類義語', '何語']),
    },
  },
  {
    name: 'settled_question',
    weights: [0.8, 0.3, -0.6, -1.2],
    patterns: {
      en: /\b(?:has|have|was|is|were) (?:the )?[\w' -]{2,40} (?:ever )?(?:been )?(?:proven|proved|solved|disproven)(?: yet)?\s*\?|\bwho (?:first )?(?:proved|solved|discovered|invented|came up with)\b/,
      ko: anyOf(['증명 ?(?:안 ?된|됐|되었|됐나)', '누가 (?:풀|증명|발견|발명)', '풀렸(?:나|어)']),
      zh: anyOf(['被证明了(?:没|吗)', '证明出来了(?:没|吗)', '谁(?:证明|解决|发现|发明)']),
      ja: anyOf(['誰が(?:解い|証明|発見|発明)', '証明されて(?:い|ま)', '解決されて(?:い|ま)']),
    },
  },
  {
    name: 'contest_bounds',
    scope: 'full',
    weights: [-2, -1.2, 0.5, 1.4],
    floor: 'COMPLEX',
    patterns: {
      any: anyOf([
        '(?:≤|<=|<)\\s*(?:\\d+\\s*[×x*·]\\s*)?10\\s*(?:\\^|\\*\\*)\\s*\\{?[4-9]',
        '(?:≤|<=|<)\\s*(?:\\d+\\s*[×x*·]\\s*)?10[⁴⁵⁶⁷⁸⁹]',
        '(?:≤|<=)\\s*\\d+e[4-9]\\b',
        '\\bo\\((?:n|q|m|n \\+ q)\\s*(?:log|√|sqrt|\\\\log)',
      ]),
    },
  },
  {
    name: 'functional_equation',
    weights: [-1.8, -1, 0.4, 1.5],
    patterns: {
      en: anyWord([
        'for all (?:real |positive |nonnegative |natural )?(?:numbers |integers )?[a-z](?:,\\s*[a-z])+',
        'find (?:a|the) (?:closed[- ]form|formula|general (?:term|formula)) for|let [a-z]\\([a-z]\\) (?:be|denote)',
        'f\\s*:\\s*(?:ℝ|ℕ|ℤ|ℚ|\\\\mathbb\\{?[rnzq]\\}?|r|n|z|q)\\s*(?:→|\\\\to|\\\\rightarrow|->)',
      ]),
      ko: anyOf(['모든 실수 [a-z], ?[a-z]', '함수방정식', '일반항을 구']),
      zh: anyOf(['对(?:任意|所有|一切)(?:实数|正整数|整数)', '函数方程', '通项公式']),
      ja: anyOf(['すべての実数 ?[a-z]', '関数方程式', '一般項を求']),
    },
  },
];

/** Terms of distributed-system design; many distinct ones in one request mean a design across components. */
export const ARCHITECTURE_TERMS: readonly RegExp[] = [
  /\bcach(?:e|es|ing)\b|캐시|缓存|キャッシュ/,
  /\bqueues?\b|\bkafka\b|\brabbitmq\b|\bsqs\b|메시지 ?큐|消息队列|キュー/,
  /\bshard(?:s|ing)?\b|\bpartition(?:s|ing)?\b|샤딩|파티션|分片|分区|シャーディング|パーティション/,
  /\bidempoten|멱등|幂等|冪等/,
  /\bexactly[- ]once\b|\bat[- ]least[- ]once\b|不重不漏/,
  /\boutbox\b|\bsagas?\b|\bcdc\b|\bevent sourcing\b|사가|아웃박스/,
  /\breplica(?:s|tion)?\b|\bfailover\b|\bleader election\b|\bconsensus\b|\braft\b|복제|레플리카|副本|主从|レプリカ|冗長/,
  /\brpo\b|\brto\b|\bdisaster recovery\b|\bmulti[- ]region\b|\bregions?\b|리전|容灾|多活|リージョン/,
  /\bconsisten(?:t|cy)\b|정합성|일관성|一致性|整合性/,
  /\bdistributed (?:transaction|lock)s?\b|\btwo[- ]phase commit\b|\b2pc\b|분산 (?:트랜잭션|락)|分布式(?:事务|锁)|分散(?:トランザクション|ロック)/,
  /\bmicroservices?\b|\bservice mesh\b|마이크로서비스|微服务|マイクロサービス/,
  /\bload balanc|\brate limit|\bbackpressure\b|\bthrottl|로드 ?밸런|限流|负载均衡|レート制限|負荷分散/,
  /\bmigrat(?:e|ion)\b|\bbackfill\b|\bzero[- ]downtime\b|\bstrangler\b|무중단|마이그레이션|迁移|移行/,
  /\bthroughput\b|\bp99\b|\blatency\b|\bqps\b|\btps\b|처리량|지연|吞吐|延迟|スループット|レイテンシ/,
];

/** Distinct architecture terms from which a request counts as a design across many components. */
const ARCHITECTURE_BREADTH_TERMS = 4;

const ARCHITECTURE_TERM_SET = createPatternSet(ARCHITECTURE_TERMS);

export const SCOPE_DERIVED_SIGNALS: readonly DerivedSignal[] = [
  {
    name: 'architecture_breadth',
    weights: [-2, -1.2, 0.3, 1.4],
    test: ({ input }) => {
      const found = new Array<boolean>(ARCHITECTURE_TERM_SET.size).fill(false);
      ARCHITECTURE_TERM_SET.scan(input.lowerText, found);
      return found.filter(Boolean).length >= ARCHITECTURE_BREADTH_TERMS;
    },
  },
];
