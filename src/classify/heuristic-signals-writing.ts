import { anyOf, anyWord, type PatternSignal } from './heuristic-signal.js';

/** Everyday language tasks: the signals that pull towards MODERATE (see RUBRIC.md). */
export const WRITING_SIGNALS: readonly PatternSignal[] = [
  {
    name: 'translate_verb',
    weights: [0, 1.2, -0.3, -0.9],
    patterns: {
      en: anyWord([
        'translat(?:e|ed|ion|ing)',
        '(?:into|to) (?:english|french|spanish|german|chinese|japanese|korean|italian|portuguese|russian|arabic|hindi|vietnamese|dutch|polish|turkish)',
      ]),
      ko: anyOf(['번역', '영어로', '한국어로', '일본어로', '중국어로', '영문으로', '한글로']),
      zh: anyOf(['翻译', '译成', '译为', '翻成', '用英文', '用英语', '成英文', '成中文', '成英语']),
      ja: anyOf(['翻訳', '訳して', '英語に', '日本語に', '和訳', '英訳']),
    },
  },
  {
    name: 'summarize_verb',
    weights: [0, 1.3, -0.2, -0.9],
    patterns: {
      en: anyWord([
        'summari[sz](?:e|ed|ing)|summary|tl;?dr|key (?:points|takeaways)|main points|in a nutshell|condense',
      ]),
      ko: anyOf(['요약', '정리해', '줄여서', '핵심만']),
      zh: anyOf(['总结', '概括', '摘要', '归纳', '概述']),
      ja: anyOf(['要約', 'まとめて', 'まとめる', '概要', '要点']),
    },
  },
  {
    name: 'rewrite_verb',
    weights: [0.1, 1.1, -0.3, -0.9],
    patterns: {
      en: anyWord([
        'rewrite|re-write|rephrase|paraphrase|proofread|reword|fix (?:the |my |any )?(?:grammar|spelling|typos?)',
        'correct (?:the |my |any )?(?:grammar|spelling|errors|mistakes)|grammatical(?:ly)?',
        'make (?:it|this) (?:sound )?(?:more )?(?:formal|casual|concise|professional|friendly|polite|shorter)',
        'improve (?:the|this|my) (?:text|writing|sentence|paragraph|email|wording)',
      ]),
      ko: anyOf(['다시 작성', '다시 써', '맞춤법', '교정', '다듬어', '자연스럽게', '문장을 고쳐']),
      zh: anyOf(['改写', '润色', '重写', '校对', '语法错误', '改成更']),
      ja: anyOf(['書き直', '添削', '言い換え', '校正', 'リライト']),
    },
  },
  {
    name: 'creative_writing',
    weights: [-0.2, 1.1, 0, -0.7],
    patterns: {
      en: anyWord([
        'poem|poetry|haiku|limerick|sonnet|short story|story|fairy tale|lyrics|song|rap|slogan|tagline|jingle',
        'tweet|caption|e-?mail|cover letter|letter|essay|blog post|speech|toast|advertisement|ad copy',
        'product description|dialogue|screenplay|fan ?fiction|novel|tongue twister|joke|riddle|scene',
      ]),
      ko: anyOf([
        '시를',
        '시 한',
        '이야기',
        '소설',
        '동화',
        '가사',
        '노래',
        '편지',
        '이메일',
        '메일',
        '에세이',
        '광고',
        '슬로건',
        '대본',
        '연설',
      ]),
      zh: anyOf([
        '诗',
        '故事',
        '小说',
        '歌词',
        '邮件',
        '一封信',
        '作文',
        '文案',
        '广告',
        '口号',
        '笑话',
        '剧本',
        '演讲',
      ]),
      ja: anyOf([
        '詩',
        '物語',
        '小説',
        '歌詞',
        'メール',
        '手紙',
        '作文',
        'エッセイ',
        '広告',
        'キャッチコピー',
        '台詞',
        'セリフ',
        '脚本',
        'スピーチ',
      ]),
    },
  },
  {
    name: 'roleplay',
    weights: [-0.3, 1.3, 0, -0.7],
    patterns: {
      en: anyWord([
        "i want you to act|act as (?:a|an|my)|pretend (?:to be|you are|you're)|you are now|role ?-?play",
        "imagine (?:that )?you(?: are|'re)|from now on,? you|stay in character",
      ]),
      ko: anyOf(['역할을', '역할극', '인 척', '처럼 행동', '당신은 이제', '롤플레이']),
      zh: anyOf(['扮演', '充当', '假装你是', '你现在是', '角色扮演']),
      ja: anyOf(['役を', 'になりきって', 'ロールプレイ', 'として振る舞', '演じて']),
    },
  },
  {
    name: 'advice',
    weights: [-0.1, 1.1, -0.2, -0.9],
    patterns: {
      en: anyWord([
        'should i|what should i|any (?:tips|advice)|give me (?:some )?(?:tips|advice)|tips (?:on|for)',
        'how (?:do|can|should) i (?:deal|cope|improve|get better|stop|start|learn|become|handle|make)',
        "recommend|i feel|i'm feeling|my (?:friend|boyfriend|girlfriend|wife|husband|mom|dad|boss|crush|partner)",
      ]),
      ko: anyOf([
        '(?:할|울|볼|갈|살|될|줄)까',
        '어떻게 하면',
        '어떡해',
        '어떻게 해야',
        '조언',
        '추천',
        '괜찮을까',
        '좋을까',
        '고민',
        '힘들',
        '싶어',
      ]),
      zh: anyOf(['建议', '怎么办', '推荐', '应该怎么', '如何才能', '怎样才能']),
      ja: anyOf(['アドバイス', 'どうすれば', 'おすすめ', 'すべき', '悩み']),
    },
  },
  {
    name: 'brainstorm_list',
    weights: [0, 1, 0, -0.6],
    patterns: {
      en: anyWord([
        'give me \\d+|list \\d+|\\d+ (?:ideas|ways|tips|examples|names|suggestions|reasons|questions|titles)',
        'brainstorm|ideas (?:for|on|about)|come up with|suggest (?:some|a few)',
      ]),
      ko: anyOf(['아이디어', '가지 (?:방법|예시|이유|제안)', '브레인스토밍']),
      zh: anyOf(['列出', '个(?:建议|方法|例子|想法|名字)', '头脑风暴', '点子']),
      ja: anyOf(['アイデア', '案を', '挙げて', 'ブレインストーミング']),
    },
  },
  {
    name: 'format_constraint',
    weights: [-0.2, 1, 0.1, -0.5],
    patterns: {
      en: anyWord([
        '(?:at least|at most|less than|fewer than|exactly|no more than) \\d+ (?:words|sentences|paragraphs|bullet points|times|sections)',
        'in all (?:capital|lowercase|uppercase)|(?:capital|lowercase|uppercase) letters|no commas|without (?:using )?(?:any )?commas',
        'wrap (?:your )?(?:entire )?(?:response|output|answer)|double quotation marks|in json format|markdown|postscript|p\\.s\\.',
        'end your (?:response|answer) with|highlight at least|bullet points?',
      ]),
      ko: anyOf(['(?<!\\d)\\d+ ?(?:단어|문장|문단)', '글머리', '대문자', '소문자', '쉼표']),
      zh: anyOf(['(?<!\\d)\\d+ ?(?:个字|字以内|句话|段)', '不超过\\d+', '项目符号']),
      ja: anyOf(['(?<!\\d)\\d+ ?(?:文字|語|文|段落)以内', '箇条書き', '以内で']),
    },
  },
  {
    name: 'classify_verb',
    weights: [0.1, 0.9, 0.1, -0.6],
    patterns: {
      en: anyWord([
        'classify|categori[sz]e|sentiment|label (?:the|each|these)|which category|(?:is|are) (?:this|these|the following) (?:positive|negative)',
      ]),
      ko: anyOf(['분류', '감정 분석', '카테고리']),
      zh: anyOf(['分类', '情感分析', '归类']),
      ja: anyOf(['分類', '感情分析', 'カテゴリ']),
    },
  },
  {
    name: 'explain_request',
    weights: [-0.1, 0.6, 0.2, -0.3],
    patterns: {
      en: /^\W*(?:can you |could you |please )?(?:explain|describe|tell me about|what is|what are|what's|why (?:do|does|is|are|did)|how (?:does|do|is|did|can))\b/,
      ko: anyOf(['설명해', '설명하', '알려줘', '알려 ?주세요', '왜 ', '이유']),
      zh: anyOf(['解释', '介绍', '为什么', '说明一下']),
      ja: anyOf(['説明して', '教えて', 'なぜ', 'どうして']),
    },
  },
];
