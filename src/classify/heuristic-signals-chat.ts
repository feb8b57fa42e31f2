import { anyOf, anyWord, type PatternSignal } from './heuristic-signal.js';

/** Small talk, lookups and one-step requests: the signals that pull towards SIMPLE (see RUBRIC.md). */
export const CHAT_SIGNALS: readonly PatternSignal[] = [
  {
    name: 'greeting',
    weights: [1.2, 0, -0.6, -0.9],
    patterns: {
      en: /^\W*(?:hi|hello|hey|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening|night)|thanks|thank you|thx|bye|goodbye|see you|hallo)\b/,
      ko: /^\W*(?:안녕|하이|반가워|반갑|고마워|고맙|감사합니다|감사해|잘 ?자|좋은 아침|수고)/,
      zh: /^\W*(?:你好|您好|嗨|早上好|晚上好|晚安|谢谢|多谢|再见|拜拜)/,
      ja: /^\W*(?:こんにちは|こんばんは|おはよう|ありがとう|どうも|さようなら|おやすみ|はじめまして|よろしく)/,
    },
  },
  {
    name: 'small_talk',
    weights: [1.1, 0.2, -0.7, -1],
    patterns: {
      en: anyWord([
        'thanks|thank you|thx|appreciate it|that worked|it works now',
        "how are you|how's it going|what'?s up|who are you|what(?: i|')s your name|are you (?:a )?(?:bot|human|real|robot)",
        "tell me a joke|i'?m bored|nice to meet you|what can you do|do you have (?:any )?(?:pets|feelings|hobbies)",
        'how old are you|where are you from|do you like',
      ]),
      ko: anyOf([
        '심심해',
        '뭐해',
        '뭐 해',
        '배고파',
        '졸려',
        '잘 ?지내',
        '누구야',
        '이름이 뭐',
        '몇 살',
        '놀자',
        '농담',
        '고마워',
        '감사합니다',
      ]),
      zh: anyOf(['你是谁', '你叫什么', '你好吗', '讲个笑话', '在吗', '吃了吗', '你几岁', '无聊', '谢谢']),
      ja: anyOf(['お元気', '元気ですか', 'あなたは誰', 'お名前', '暇だ', '冗談を', '何歳', 'ありがとう']),
    },
  },
  {
    name: 'conversion',
    weights: [1.4, 0.1, -0.6, -1.1],
    patterns: {
      en: anyWord([
        'convert|conversion|exchange rate|in (?:celsius|fahrenheit|kelvin)',
        'how many (?:cups|ounces|oz|grams|pounds|inches|feet|meters|miles|kilometers|liters|gallons|teaspoons|tablespoons|seconds|minutes|hours|days|weeks) (?:are )?in',
        '\\d[\\d.,]*\\s*(?:km|mi|miles|kg|lbs?|pounds|celsius|fahrenheit|feet|ft|inches|cm|mm|oz|ml|usd|eur|dollars|euros|yen) (?:to|in|into) \\w+',
      ]),
      ko: anyOf([
        '환율',
        '환산',
        '(?<!\\d)\\d+\\s*(?:킬로|마일|파운드|달러|엔|유로|인치|피트|도)(?:는|은)?\\s*(?:몇|얼마)',
      ]),
      zh: anyOf(['换算', '汇率', '等于多少', '是多少(?:公里|英里|公斤|磅|美元|人民币|度)']),
      ja: anyOf(['換算', '為替', '何(?:センチ|メートル|キロ|グラム|ポンド|ドル|円)', 'は何度']),
    },
  },
  {
    name: 'wh_question',
    weights: [0.5, 0.2, -0.2, -0.5],
    patterns: {
      en: /^\W*(?:who|when|where|which|what|whats|what's|how many|how much|how long|how old|is|are|was|did|does|can) (?:\w+ ){0,1}(?:is|was|are|were|did|does|do|won|wrote|played|sang|invented|discovered|the|a|an|my|i)\b/,
      ko: anyOf([
        '누구',
        '언제',
        '어디',
        '몇 ?년',
        '무엇인가요',
        '뭐야',
        '뭐에요',
        '뭔가요',
        '인가요\\??$',
        '나요\\??$',
      ]),
      zh: anyOf(['是谁', '什么时候', '在哪', '哪一年', '哪个', '是什么', '叫什么', '吗[？?]?$']),
      ja: anyOf(['誰', 'いつ', 'どこ', '何年', 'とは何', 'って何', 'ですか[？?]?$']),
    },
  },
  {
    name: 'fact_question',
    weights: [0.9, 0, -0.4, -0.7],
    patterns: {
      en: /^\W*(?:who|when|where|which|what year|what day|what date|in what year|how (?:many|much|long|old|far|tall|big|deep|high)|what(?: is|'s) the (?:name|capital|population|height|distance|date|price|cost|colou?r|currency|time|age|size|speed|weight|largest|smallest|highest|longest|tallest|biggest|first|last))\b/,
      ko: anyOf([
        '누구(?:야|예요|인가요|일까|였)',
        '언제(?:야|예요|인가요|였|까지)',
        '어디(?:야|예요|에|서|인가요)',
        '몇 ?(?:년|살|개|명|층)',
        '수도는',
        '이름은',
      ]),
      zh: anyOf(['是谁', '什么时候', '哪一年', '在哪里', '哪个国家', '首都是', '多少年']),
      ja: anyOf(['誰ですか', 'いつですか', 'どこですか', '何年', '首都は']),
    },
  },
  {
    name: 'explanation_question',
    weights: [-0.6, 0.8, 0.1, -0.3],
    patterns: {
      en: anyWord([
        'why|how (?:do|does|did|can|could|should|would|to|is|are)|explain|differences? between|purpose of|history of',
        'overview|what caused|causes of|how come|in simple terms|eli5',
        'what are (?:some|the) (?:best|ways|benefits|reasons|differences|advantages|key|main|most)|what should|what would happen',
        'is it (?:better|possible|true|safe|worth|ok|okay|normal|bad|good)|what do you think|do you think|your opinion',
      ]),
      ko: anyOf(['왜', '어떻게', '차이', '이유', '의견', '생각해']),
      zh: anyOf(['为什么', '怎么', '如何', '区别', '原因', '你觉得', '你认为']),
      ja: anyOf(['なぜ', 'どうして', 'どうやって', '違い', '理由', '思いますか']),
    },
  },
  {
    name: 'personal_context',
    weights: [-0.3, 0.5, 0, -0.3],
    patterns: {
      en: anyWord(["i'?m|i am|i have|i've|i want|i need|i feel|my"]),
      ko: anyOf(['나는', '제가', '내가', '저는', '우리']),
      zh: anyOf(['我是', '我有', '我想', '我的', '我在']),
      ja: anyOf(['私は', '私の', '僕は', '自分']),
    },
  },
  {
    name: 'trivial_formatting',
    weights: [0.8, 0.5, -0.6, -1.1],
    patterns: {
      en: anyWord([
        'sort (?:these|this|the following)|alphabeti[sz]e|in alphabetical order|reverse (?:this|the) (?:list|string|word)',
        'capitali[sz]e|to (?:upper|lower)case|(?:camel|snake|kebab)[ _-]?case',
      ]),
      ko: anyOf(['정렬해', '가나다순', '대문자로', '소문자로', '카멜', '스네이크']),
      zh: anyOf(['排序', '按字母', '小驼峰', '大驼峰', '转成大写', '转成小写']),
      ja: anyOf(['並べて', '並び替え', 'あいうえお順', '五十音順', 'アルファベット順']),
    },
  },
  {
    name: 'definition',
    weights: [0.8, 0.3, -0.4, -0.8],
    patterns: {
      en: anyWord([
        'define|definition of|meaning of|what does (?:the word )?["\']?\\w+["\']? mean|synonyms?|antonyms?',
        'how do you spell|spelling of|how (?:do you|to) pronounce|stand for',
      ]),
      ko: anyOf(['뜻(?:이|은|을)', '정의(?:가|는|를)', '의미(?:가|는)', '철자', '동의어', '반의어', '약자']),
      zh: anyOf(['什么意思', '的意思', '定义', '同义词', '反义词', '怎么读', '拼写', '缩写']),
      ja: anyOf(['の意味', 'とはどういう意味', '定義', '類義語', '読み方', '同義語', '略語']),
    },
  },
  {
    name: 'time_weather',
    weights: [1.3, 0.1, -0.7, -1.1],
    patterns: {
      en: anyWord([
        "what time is it|what(?:'s| is) the (?:time|date|weather)|what day is|time zone|timezone",
        'weather (?:in|today|tomorrow|forecast)|forecast for|next holiday|how many days until',
      ]),
      ko: anyOf(['몇 시야', '몇 시예요', '날씨', '오늘 며칠', '무슨 요일', '시차']),
      zh: anyOf(['几点了', '天气', '星期几', '今天几号', '时差']),
      ja: anyOf(['何時です', '天気', '何曜日', '今日は何日', '時差']),
    },
  },
  {
    name: 'assistant_command',
    weights: [1.2, 0.1, -0.7, -1.1],
    patterns: {
      en: anyWord([
        'set (?:a |an |my )?(?:alarm|timer|reminder)|remind me|play (?:some )?(?:music|song)|turn (?:on|off) the',
        "call my|text my|flip a coin|roll (?:a )?dic?e|what(?:'s| is) my (?:balance|credit score|schedule|name)",
        'add \\w+ to my (?:list|calendar|cart)|book (?:a|me a) (?:table|flight|hotel|room)',
      ]),
      ko: anyOf(['알람', '타이머', '알림 설정', '음악 틀어', '전화 걸어', '주사위']),
      zh: anyOf(['设置闹钟', '定时器', '提醒我', '播放音乐', '打电话给', '掷骰子']),
      ja: anyOf(['アラーム', 'タイマー', 'リマインド', '音楽をかけて', '電話して', 'サイコロ']),
    },
  },
  {
    name: 'one_step_arithmetic',
    weights: [1.5, 0.1, -0.8, -1.2],
    patterns: {
      any: /^\W*(?:what(?: is|'s) |calculate |compute |solve )?-?\d[\d,.]*\s*(?:[-+*/x×÷^]|plus|minus|times|divided by|multiplied by)\s*-?\d[\d,.]*\s*(?:=\s*)?\??\s*$/,
      en: anyWord([
        'square root of \\d+|\\d+(?:\\.\\d+)?\\s*% of \\d+|\\d+ (?:squared|cubed)|\\d+ (?:plus|minus|times|divided by|multiplied by) \\d+',
      ]),
      ko: anyOf(['(?<!\\d)\\d+\\s*(?:더하기|빼기|곱하기|나누기)\\s*\\d+']),
      zh: anyOf(['(?<!\\d)\\d+\\s*(?:加|减|乘以?|除以)\\s*\\d+(?:等于)?(?:多少|几)']),
      ja: anyOf(['(?<!\\d)\\d+\\s*(?:足す|引く|掛ける|割る)\\s*\\d+']),
    },
  },
];
