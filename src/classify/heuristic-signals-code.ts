import { anyOf, anyWord, LINE_SPACE, type PatternSignal } from './heuristic-signal.js';

/** Code, debugging and software design: the signals that pull towards COMPLEX, hard algorithms to EXPERT. */
export const CODE_SIGNALS: readonly PatternSignal[] = [
  {
    name: 'code_block',
    scope: 'full',
    weights: [-1.5, -0.3, 1.3, 0.2],
    patterns: { any: /```|~~~|<code>|^(?: {4}|\t)\S.*[;{}()=:]\s*$/m },
  },
  {
    name: 'code_syntax',
    scope: 'full',
    weights: [-1.5, -0.3, 1.2, 0.2],
    patterns: {
      any: anyOf(
        [
          `^${LINE_SPACE}*(?:def \\w+\\(|class \\w+[:(]|import [\\w.]+(?: as \\w+)?;?$|from [\\w.]+ import|#include\\s*[<"]|function \\w+\\(.*\\)\\s*\\{|(?:const|var) \\w+ = )`,
          `^${LINE_SPACE}*(?:public (?:static )?(?:void|class|int)|fn \\w+\\(|func \\w+\\(|package [\\w.]+;?$|<\\?php|<html|<div)`,
          '\\bselect (?:\\*|[\\w.]+(?:\\s*,\\s*[\\w.]+)*) from \\w+|\\bcreate table\\b|console\\.log\\(|printf\\(|\\breturn \\w+;|=>\\s*\\{',
        ],
        'm',
      ),
    },
  },
  {
    name: 'code_vocab',
    weights: [-0.8, -0.1, 0.8, 0.1],
    patterns: {
      en: anyWord([
        'python|javascript|typescript|java|c\\+\\+|c#|golang|rust|kotlin|swift|php|ruby|scala|haskell|perl|lua|matlab',
        'sql|mysql|postgres(?:ql)?|sqlite|mongodb|redis|regex|bash|shell script|powershell|docker(?:file)?|kubernetes|terraform',
        'api|endpoint|graphql|react|vue|angular|node\\.?js|django|flask|fastapi|spring boot|pandas|numpy|pytorch|tensorflow',
        'matplotlib|linked list|algorithm|compiler|runtime|debug|unit tests?|source code|code|script|github|npm|vba|css|html',
        'frontend|backend|database|json|yaml|xml|csv file|excel formula|function that|class that|git',
      ]),
      ko: anyOf([
        '코드',
        '함수',
        '프로그램',
        '파이썬',
        '자바스크립트',
        '스크립트',
        '알고리즘',
        '클래스',
        '배열',
        '데이터베이스',
        '쿼리',
        '디버그',
        '컴파일',
        '라이브러리',
        '프레임워크',
      ]),
      zh: anyOf([
        '代码',
        '函数',
        '程序',
        '编程',
        '脚本',
        '算法',
        '数组',
        '变量',
        '数据库',
        '查询语句',
        '调试',
        '编译',
        '接口',
        '前端',
        '后端',
      ]),
      ja: anyOf([
        'コード',
        '関数',
        'プログラム',
        'スクリプト',
        'アルゴリズム',
        '配列',
        '変数',
        'データベース',
        'クエリ',
        'デバッグ',
        'コンパイル',
        'ライブラリ',
      ]),
    },
  },
  {
    name: 'code_request',
    weights: [-1.5, -0.5, 1.5, 0.2],
    patterns: {
      en: anyWord([
        '(?:write|create|implement|build|generate|develop|make|give me|show me|code) (?:me )?(?:a |an |the |some )?(?:\\w+ ){0,2}(?:function|program|script|code|class|method|query|api|app|application|bot|website|web app|component|module|cli|game|regex|algorithm|unit tests?|snippet)',
        'how (?:do|can|to) (?:i )?(?:implement|code|program)|fix (?:this|my|the) (?:code|bug|function|script|query)',
        'what does this (?:code|script|function|query) do|in (?:python|javascript|typescript|java|c\\+\\+|rust|go|golang|c#|sql|bash)',
      ]),
      ko: anyOf([
        '코드를? ?(?:작성|짜|만들)',
        '함수를? ?(?:작성|만들)',
        '프로그램을? ?(?:작성|만들)',
        '구현해',
        '구현하',
        '코딩',
        '스크립트를? ?(?:작성|만들)',
      ]),
      zh: anyOf([
        '(?:编写|写|实现|生成)(?:一个|一段|一下)?.{0,10}(?:代码|函数|程序|脚本)',
        '用(?:python|java|c\\+\\+|javascript|go|rust|r语言|sql).{0,10}(?:写|实现|编)',
        '编程',
      ]),
      ja: anyOf(['(?:コード|関数|プログラム|スクリプト)を(?:書いて|作成|作って|実装)', '実装して', 'を実装']),
    },
  },
  {
    name: 'stack_trace',
    scope: 'full',
    weights: [-1.5, -0.2, 1.3, 0.3],
    patterns: {
      any: anyOf(
        [
          'traceback \\(most recent call last\\)',
          // `^\s+at` as one line's spaces and then one whitespace character (a line end too), the same matches
          `^${LINE_SPACE}*\\sat [\\w$.<>]+ ?\\(.*:\\d+(?::\\d+)?\\)`,
          'exception in thread|segmentation fault|core dumped|panicked at|error\\[e\\d{4}\\]|error ts\\d{4}',
          'undefined reference to|cannot find symbol|npm err!|nullpointerexception|uncaught \\w*error',
          '\\b(?:syntax|type|value|key|attribute|index|name|runtime|reference|import|modulenotfound)error\\b',
          `^${LINE_SPACE}*file ".+", line \\d+`,
        ],
        'm',
      ),
    },
  },
  {
    name: 'code_chore',
    weights: [0.3, 1.2, -0.4, -1],
    patterns: {
      en: anyWord([
        'add (?:\\w+ )?(?:comments?|docstrings?|type hints|jsdoc|logging)|commit message|rename (?:this|the|a) (?:variable|function|file)',
        'what does (?:this|the) (?:code|function|regex|snippet|line|script|query|flag|option) (?:do|mean)|explain (?:this|the|what this) (?:code|function|regex|snippet|script)',
        'what language is this|readme|format (?:this|the) (?:code|json)|convert (?:this|the) (?:json|yaml|csv)',
      ]),
      ko: anyOf(['주석', 'docstring', '커밋 메시지', '변수명', '무슨 뜻', '뭐 하는 건지', '뭐 하는 코드']),
      zh: anyOf(['注释', '提交信息', 'commit message', '变量名', '是什么意思', '这段代码是做什么']),
      ja: anyOf(['コメントを', 'docstring', 'コミットメッセージ', '変数名', 'どういう意味', '何をしている']),
    },
  },
  {
    name: 'debug_request',
    weights: [-1, 0, 0.9, 0.2],
    patterns: {
      en: anyWord([
        "debug|doesn'?t work|does not work|not working|throws (?:an? )?\\w*(?:error|exception)|getting (?:an? |this )?(?:error|exception)",
        'why (?:is|does) (?:my|this) (?:code|function|script|program|query)|stack ?trace|compil(?:e|ation) error',
      ]),
      ko: anyOf(['에러', '오류가', '버그', '작동하지 않', '실행이 안']),
      zh: anyOf(['报错', '出错', '异常', '调试', '运行不了']),
      ja: anyOf(['エラー', 'バグ', '動かない', 'デバッグ']),
    },
  },
  {
    name: 'refactor',
    weights: [-1.2, -0.3, 1.3, 0.4],
    floor: 'COMPLEX',
    patterns: {
      en: anyWord([
        'refactor(?:ing|ed)?|clean up (?:this|the|my) code|code review|optimi[sz]e (?:this|the|my) (?:code|query|function)',
      ]),
      ko: anyOf(['리팩터', '리팩토링', '코드 리뷰']),
      zh: anyOf(['重构', '代码审查', '优化这段代码']),
      ja: anyOf(['リファクタ', 'コードレビュー']),
    },
  },
  {
    name: 'system_design',
    weights: [-1.3, -0.4, 0.6, 0.9],
    patterns: {
      en: anyWord([
        'system design|design (?:a|an) (?:scalable|distributed|fault[- ]tolerant|highly available)|distributed systems?',
        'microservices?|architecture|scalab(?:le|ility)|across (?:the|multiple) (?:codebase|services|modules|files)|production[- ]ready',
        'design (?:a|an|the|our) (?:\\w+ ){0,3}(?:system|service|platform|pipeline|backend|infrastructure)',
      ]),
      ko: anyOf(['아키텍처', '설계', '분산 시스템', '마이크로서비스', '확장성']),
      zh: anyOf(['架构', '系统设计', '设计一(?:个|套)', '分布式', '微服务', '高可用', '可扩展']),
      ja: anyOf([
        'アーキテクチャ',
        'システム設計',
        '設計して',
        '分散システム',
        'マイクロサービス',
        'スケーラ',
      ]),
    },
  },
  {
    name: 'multi_file_context',
    scope: 'full',
    weights: [-1.8, -1, 0.4, 1],
    patterns: {
      any: anyOf(
        [
          '#file:',
          '@file\\b',
          '^(?:[\\w.-]+/)+[\\w.-]+\\.(?:py|ts|tsx|js|go|java|rb|php|rs|kt|cs|cpp|c|h)\\b.*\\n(?:.*\\n)*?(?:[\\w.-]+/)+[\\w.-]+\\.\\w+',
        ],
        'm',
      ),
    },
  },
  {
    name: 'leetcode_format',
    scope: 'full',
    weights: [-2, -1, 1.2, 0.8],
    floor: 'COMPLEX',
    patterns: {
      any: anyOf([
        '^\\s*example \\d+:',
        '^\\s*constraints:',
        '^\\s*input: ',
        '^\\s*output: ',
        '^\\s*explanation: ',
      ]),
      ko: anyOf(['제약 ?조건', '입력 예', '출력 예']),
      zh: anyOf(['示例 ?\\d', '提示：', '输入：', '输出：']),
      ja: anyOf(['制約', '入力例', '出力例']),
    },
  },
  {
    name: 'contest_format',
    scope: 'full',
    weights: [-2, -1.2, 0.6, 1.4],
    floor: 'COMPLEX',
    patterns: {
      any: anyOf(
        [
          'the first line (?:of (?:the )?input )?contains',
          '^-{3,}\\s*input\\s*-{3,}|^input$|^output$',
          '\\b(?:time|memory) limit\\b|\\b10\\^9\\s*\\+\\s*7|\\b1e9\\s*\\+\\s*7|(?<!\\d)\\d+\\s*≤\\s*\\w+\\s*≤',
          '\\bt test cases\\b|\\beach test case\\b',
        ],
        'm',
      ),
      zh: anyOf(['输入格式', '输出格式', '数据范围']),
      ko: anyOf(['입력 형식', '출력 형식']),
      ja: anyOf(['入力形式', '出力形式']),
    },
  },
  {
    name: 'algorithm_vocab',
    weights: [-1.2, -0.6, 0.8, 0.7],
    patterns: {
      en: anyWord([
        'time complexity|space complexity|o\\(n(?: log n|\\^2|²)?\\)|dynamic programming|segment tree|fenwick|dijkstra',
        'shortest path|minimum spanning|bipartite|topological sort|binary search|greedy|backtracking|subsequence|subarray',
      ]),
      ko: anyOf(['시간 복잡도', '동적 계획법', '최단 경로', '이분 탐색', '부분 수열']),
      zh: anyOf(['时间复杂度', '动态规划', '最短路', '二分查找', '子序列', '子数组']),
      ja: anyOf(['計算量', '動的計画法', '最短経路', '二分探索', '部分列']),
    },
  },
];
