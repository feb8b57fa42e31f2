import { anyOf, anyWord, type PatternSignal } from './heuristic-signal.js';
import { hasNumberedRequirements } from './numbered-requirements.js';

/** Multi-step work, constraints, analysis and expert domains: the signals that pull towards COMPLEX/EXPERT. */
export const REASONING_SIGNALS: readonly PatternSignal[] = [
  {
    name: 'multi_step',
    weights: [-0.9, 0.1, 0.6, 0.2],
    patterns: {
      en: anyWord([
        'step[- ]by[- ]step|multi-?step|walk me through|detailed plan|in detail|first,? .{0,80}\\b(?:then|next|after that)',
      ]),
      ko: anyOf(['단계별', '단계적으로', '먼저.{0,60}(?:그 ?다음|그리고 나서)', '자세히']),
      zh: anyOf(['步骤', '首先.{0,60}(?:然后|其次|接着)', '分步', '详细']),
      ja: anyOf(['ステップ', '手順', 'まず.{0,60}(?:次に|その後)', '詳しく']),
    },
  },
  {
    name: 'numbered_requirements',
    scope: 'full',
    weights: [-1, 0, 0.5, 0.3],
    // NUMBERED_REQUIREMENTS_PATTERN, answered in linear time
    patterns: {},
    matches: hasNumberedRequirements,
  },
  {
    name: 'constraint_markers',
    weights: [-0.8, 0.2, 0.5, 0.2],
    patterns: {
      en: anyWord([
        'must not|must be|make sure|ensure that|no more than|without using|only use|requirements?:|constraints?:',
        'should handle|edge cases?|the following conditions|subject to',
      ]),
      ko: anyOf(['반드시', '조건', '요구 ?사항', '제약']),
      zh: anyOf(['必须', '要求', '条件', '约束', '不得']),
      ja: anyOf(['必ず', '条件', '要件', '制約']),
    },
  },
  {
    name: 'analysis_request',
    weights: [-1, 0.3, 0.7, 0.3],
    patterns: {
      en: anyWord([
        'analy[sz]e|analysis|compare|comparison|contrast|evaluate|assess|critique|pros and cons|trade-?offs?',
        'implications|differential diagnosis|in-depth|comprehensive',
      ]),
      ko: anyOf(['분석', '비교', '평가', '장단점', '심층']),
      zh: anyOf(['分析', '比较', '对比', '评估', '利弊', '优缺点', '深入']),
      ja: anyOf(['分析', '比較', '評価', '長所と短所', 'メリットとデメリット']),
    },
  },
  {
    name: 'logic_puzzle',
    weights: [-0.9, 0, 1, 0.4],
    patterns: {
      en: anyWord([
        'puzzle|riddle|logic(?:al)? (?:problem|question|puzzle)|brain ?teaser|knights? and knaves|truth[- ]tellers?',
        'who is lying|which (?:box|door)|trick question',
      ]),
      ko: anyOf(['퍼즐', '수수께끼', '논리 문제']),
      zh: anyOf(['谜题', '逻辑题', '推理题', '脑筋急转弯']),
      ja: anyOf(['パズル', 'なぞなぞ', '論理問題']),
    },
  },
  {
    name: 'data_extraction',
    weights: [-0.8, 0.3, 0.6, -0.2],
    patterns: {
      en: anyWord([
        'extract|parse|structured (?:data|output)|key-value|fill in the (?:table|template)|named entities|in a table',
      ]),
      ko: anyOf(['추출', '표로', '표를']),
      zh: anyOf(['提取', '抽取', '表格', '结构化']),
      ja: anyOf(['抽出', '表に', '表形式', '構造化']),
    },
  },
  {
    name: 'planning_request',
    weights: [-0.5, 0.6, 0.4, -0.3],
    patterns: {
      en: anyWord([
        'itinerary|schedule|roadmap|strategy|business plan|marketing plan|budget|timeline|project plan|plan for',
      ]),
      ko: anyOf(['계획', '일정', '전략', '로드맵']),
      zh: anyOf(['计划', '日程', '行程', '策略', '规划']),
      ja: anyOf(['計画', '日程', 'スケジュール', '戦略', 'ロードマップ']),
    },
  },
  {
    name: 'research_level',
    weights: [-1.2, -0.5, 0.4, 1.1],
    patterns: {
      en: anyWord([
        'research|ph\\.?d|graduate[- ]level|state[- ]of[- ]the[- ]art|literature review|peer[- ]review|rigorous(?:ly)?',
        'derive|derivation|theoretical|quantum|thermodynamics?|differential equations?|stochastic|bayesian|econometrics?',
        'statistical significance|clinical|pathophysiology|pharmacokinetics?|jurisprudence|case law|statutes?|tort|constitutional',
      ]),
      ko: anyOf(['논문', '연구', '박사', '양자', '열역학', '미분방정식', '확률과정', '임상', '판례']),
      zh: anyOf([
        '论文',
        '研究',
        '博士',
        '量子',
        '热力学',
        '微分方程',
        '随机过程',
        '临床',
        '判例',
        '计量经济',
        '拟合',
      ]),
      ja: anyOf(['論文', '研究', '博士', '量子', '熱力学', '微分方程式', '確率過程', '臨床', '判例']),
    },
  },
  {
    name: 'expert_domain',
    weights: [-1.5, -0.8, 0.3, 1.4],
    patterns: {
      en: anyWord([
        'case law|jurisprudence|fiduciary|entire fairness|squeeze-out|gdpr|statutory|burden of proof|tort law|legal precedent',
        'differential diagnosis|pathophysiology|randomi[sz]ed (?:controlled )?trials?|rcts?|mutations?|resistance mechanisms?|pharmacokinetics',
        'gauge invariance|renormali[sz]ation|qft|hamiltonian|topological|quantum field|self-energy|dmft',
        'identification strategy|instrumental variables?|difference[- ]in[- ]differences|staggered did|twfe|endogeneity|causal inference|confounding',
      ]),
      ko: anyOf([
        '판례',
        '법리',
        '임상시험',
        '내성 기전',
        '감별 ?진단',
        '게이지',
        '위상 절연체',
        '인과추론',
        '교란',
        '내생성',
        '식별 전략',
      ]),
      zh: anyOf([
        '司法解释',
        '判例',
        '法理',
        '临床试验',
        '鉴别诊断',
        '耐药机制',
        '规范不变',
        '拓扑绝缘体',
        '因果推断',
        '内生性',
        '识别策略',
        '双重差分',
      ]),
      ja: anyOf([
        '判例',
        '法的',
        '臨床試験',
        '鑑別診断',
        '耐性機序',
        'ゲージ',
        'トポロジカル',
        '因果推論',
        '内生性',
        '識別戦略',
      ]),
    },
  },
  {
    name: 'critical_review',
    weights: [-1.5, -0.6, 0.3, 1.2],
    patterns: {
      en: anyWord([
        'critique|critically (?:evaluate|assess|examine)|peer[- ]review|refereeing|as a reviewer|referee report|poke holes',
      ]),
      ko: anyOf(['비판적', '심사위원', '리뷰를 맡은', '허점']),
      zh: anyOf(['批判', '审稿', '挑刺', '漏洞']),
      ja: anyOf(['批判的', '査読', '審査']),
    },
  },
  {
    name: 'scale_requirements',
    weights: [-1.5, -0.8, 0.4, 1.2],
    patterns: {
      en: anyWord([
        '\\d+(?:\\.\\d+)?\\s*[km]? ?(?:qps|rps|tps|req/s|requests per second)|(?:millions?|billions?) of (?:users|requests|events)',
        'exactly[- ]once|multi[- ]region|\\d+ regions|rpo|rto|high availability|zero[- ]downtime|strong consistency|leader election',
      ]),
      ko: anyOf(['tps', 'qps', '동시 접속', '리전', '무중단', '정합성', '분산 트랜잭션', 'exactly-once']),
      zh: anyOf(['千万级', '百万级', '日活', '高并发', '容灾', '不重不漏', '强一致', '分布式事务']),
      ja: anyOf(['同時リクエスト', '万人', '冗長化', '整合性', '分散トランザクション', 'オーバーセル']),
    },
  },
  {
    name: 'best_quality',
    weights: [-0.8, -0.2, 0.4, 0.6],
    patterns: {
      en: anyWord([
        'very best|highest quality|expert[- ]level|world[- ]class|as an expert|in great detail|exhaustive',
      ]),
      ko: anyOf(['최고 수준', '전문가 수준']),
      zh: anyOf(['专家级', '最高质量']),
      ja: anyOf(['専門家レベル', '最高品質']),
    },
  },
];
