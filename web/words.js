// Every word the DOM page says, in English and Chinese, in one table: app.js and tools.js
// look them up by key (deliverylabPage.t), and index.html's data-i18n attributes name
// them. One home, so a translation is checked, and a new word added, in one place; the
// canvas's words live in wasm/view/words.go and the scenes' and the core's prose comes
// in the bridge's JSON, already in both languages. Loaded before app.js, which reads
// window.deliverylabWords once.
"use strict";
window.deliverylabWords = {
  // The page's controls, headings, titles and aria-labels (index.html's data-i18n keys) and
  // its own notices and refusals (app.js).
  tagline: { en: "Kafka delivery semantics, message by message", zh: "Kafka 投递语义，逐条消息剖析" },
  language: { en: "Language", zh: "语言" },
  lessons: { en: "Lessons", zh: "课程" },
  lessonsTitle: { en: "Twenty-minute lessons: scenes, questions and what to say", zh: "20 分钟的课程：场景、问题和要讲的话" },
  scenes: { en: "Scenes", zh: "场景" },
  scene: { en: "Scene", zh: "场景" },
  loadingScenes: { en: "Loading scenes…", zh: "正在加载场景…" },
  noScene: { en: "Delivery Lab", zh: "Delivery Lab" },
  play: { en: "Play", zh: "播放" },
  pause: { en: "Pause", zh: "暂停" },
  replay: { en: "Replay", zh: "重播" },
  continue: { en: "Continue", zh: "继续" },
  continueTitle: { en: "The caption paused the run: continue (Space)", zh: "解说暂停了运行：继续（空格）" },
  step: { en: "Step", zh: "单步" },
  stepTitle: { en: "One event on (→)", zh: "前进一个事件（→）" },
  stepBack: { en: "Step back", zh: "后退" },
  stepBackTitle: { en: "One event back (←)", zh: "后退一个事件（←）" },
  runToEnd: { en: "Run to end", zh: "运行到结束" },
  restart: { en: "Restart", zh: "重新开始" },
  restartTitle: { en: "Back to 0 ms, your faults kept (R)", zh: "回到 0 毫秒，保留你的故障（R）" },
  speed: { en: "Speed", zh: "速度" },
  speedTitle: { en: "Speed (+ / −)", zh: "速度（+ / −）" },
  speedNow: { en: "Speed", zh: "速度" },
  projector: { en: "Projector", zh: "投影模式" },
  projectorTitle: { en: "Projector mode: fullscreen, large type, high contrast (P)", zh: "投影模式：全屏、大字、高对比度（P）" },
  helpTitle: { en: "Keys (?)", zh: "快捷键（?）" },
  helpHeading: { en: "Keys", zh: "快捷键" },
  close: { en: "Close (Esc)", zh: "关闭（Esc）" },
  virtualTime: { en: "Virtual time", zh: "虚拟时间" },
  canvasTitle: { en: "Simulation canvas", zh: "模拟画布" },
  loadingAria: { en: "Loading", zh: "加载进度" },
  loading: { en: "Loading the simulation…", zh: "正在加载模拟…" },
  starting: { en: "Starting the simulation…", zh: "正在启动模拟…" },
  hint: {
    en: "Click a broker to crash it and again to restart it; click a message in flight to drop it; press ? for the keys.",
    zh: "点击一个 broker 让它崩溃，再点一次让它重启；点击传输中的消息将其丢弃；按 ? 查看快捷键。",
  },
  legendTitle: { en: "What the canvas shows", zh: "画布图例" },
  faultLabel: { en: "Inject a fault", zh: "注入故障" },
  inject: { en: "Inject", zh: "注入" },
  captions: { en: "Narration", zh: "解说" },
  captionSeek: { en: "Jump to this moment", zh: "跳到这一刻" },
  offScript: {
    en: "Your faults changed the run: the captions after them follow the scene's script and may not match what you see.",
    zh: "你注入的故障改变了这次运行：之后的解说仍按场景剧本展开，可能与你看到的不符。",
  },
  about: { en: "About this scene", zh: "关于本场景" },
  faults: { en: "Your faults", zh: "你注入的故障" },
  noFaults: { en: "None yet.", zh: "暂无。" },
  armed: { en: "Armed:", zh: "已布置：" },
  futureFault: { en: "Later than now: it happens again when the run reaches it", zh: "在当前时刻之后：运行到那里时会再次发生" },
  faultMark: { en: "Your fault", zh: "你的故障" },
  // The scene's own scripted faults (its faults: key), listed and marked like the user's.
  sceneFaults: { en: "The scene's faults", zh: "场景自带的故障" },
  sceneFaultMark: { en: "The scene's fault", zh: "场景的故障" },
  sceneFaultAhead: { en: "Later than now: it happens when the run reaches it", zh: "在当前时刻之后：运行到那里时才发生" },
  sceneFaultArmed: { en: "Armed: it happens when its protocol point comes", zh: "已布置：到达它的协议点时发生" },
  sceneFaultNever: { en: "Its protocol point never came in this run", zh: "这次运行中始终没有到达它的协议点" },
  captionMark: { en: "Caption", zh: "解说" },
  // The session learns how long a run lasts by running a copy of it to its end, a slice a
  // frame for a long run: until then the scrubber spans what it has learned so far.
  learningLength: { en: "learning how long the run lasts…", zh: "正在推算这次运行有多长……" },
  invariants: { en: "Invariant violations", zh: "不变量被破坏" },
  ledger: { en: "Ledger", zh: "账本" },
  ledgerHint: {
    en: "Select a message to see its path on the canvas and jump to the moment its fate was decided.",
    zh: "选中一条消息，可在画布上看到它走过的路径，并跳到决定它结局的那一刻。",
  },
  verdict: { en: "Verdict", zh: "结论" },
  verdictPending: { en: "The verdict is known when the run ends", zh: "运行结束时才能得出结论" },
  message: { en: "Message", zh: "消息" },
  fate: { en: "Fate", zh: "结局" },
  why: { en: "Why", zh: "原因" },
  trace: { en: "Trace", zh: "事件轨迹" },
  output: { en: "output", zh: "输出" },
  crashed: { en: "The simulation stopped: ", zh: "模拟已停止：" },
  noMessages: { en: "No messages yet.", zh: "还没有消息。" },
  endWhy: { en: "Why the run stopped:", zh: "运行为何停止：" },
  anomalies: { en: "Anomalies (Jepsen's names)", zh: "异常（Jepsen 的命名）" },
  totalShown: { en: "Dashboard total: shown", zh: "看板总数：显示" },
  totalExpected: { en: "expected", zh: "应为" },
  overcounts: { en: "overcounts by", zh: "多算了" },
  undercounts: { en: "undercounts by", zh: "少算了" },
  stillLoading: { en: "the simulation is still loading", zh: "模拟仍在加载" },
  hasCrashed: { en: "the simulation has crashed: ", zh: "模拟已崩溃：" },
  notAvailable: { en: "this build of the canvas cannot do that yet: ", zh: "这一版画布还不支持：" },

  // A message's fate, in the ledger and the counts (their order is app.js's COUNT_ORDER).
  "fate.sent": { en: "sent", zh: "已发送" },
  "fate.acked": { en: "acked", zh: "已确认" },
  "fate.delivered": { en: "delivered", zh: "已送达" },
  "fate.lost": { en: "lost", zh: "丢失" },
  "fate.duplicated": { en: "duplicated", zh: "重复" },
  "fate.unavailable": { en: "unavailable", zh: "不可用" },
  "fate.failed": { en: "failed", zh: "失败" },
  "fate.pending": { en: "pending", zh: "待定" },

  // The verdict is the lesson's key word: in Chinese the Chinese name first, then the
  // term the class will meet in Kafka's documentation.
  "verdict.exactly-once": { en: "exactly-once", zh: "精确一次（exactly-once）" },
  "verdict.at-least-once": { en: "at-least-once", zh: "至少一次（at-least-once）" },
  "verdict.at-most-once": { en: "at-most-once", zh: "至多一次（at-most-once）" },
  "verdict.none": { en: "none", zh: "无任何保证（none）" },

  // The help overlay: what each key does (app.js's KEY_HELP lists the keys), and the one
  // key whose name is said in words.
  "key.space": { en: "Play or pause; continue after a caption that paused the run", zh: "播放或暂停；解说暂停运行后继续" },
  "key.stepOn": { en: "One event on", zh: "前进一个事件" },
  "key.stepBack": { en: "One event back", zh: "后退一个事件" },
  "key.speed": { en: "Faster / slower (1/10× to 100×)", zh: "加速 / 减速（1/10× 到 100×）" },
  "key.restart": { en: "Restart from 0 ms (your faults are kept)", zh: "从 0 毫秒重新开始（保留你的故障）" },
  "key.lang": { en: "English / 中文", zh: "English / 中文" },
  "key.projector": { en: "Projector mode: fullscreen, large type, high contrast", zh: "投影模式：全屏、大字、高对比度" },
  "key.help": { en: "This help", zh: "本帮助" },
  "key.close": { en: "Close this help", zh: "关闭本帮助" },
  "kbd.space": { en: "Space", zh: "空格" },

  // The legend: what each badge, line and cell the canvas draws means (app.js's LEGEND pairs
  // each with its swatch). The badges are the canvas's own words (wasm/view/words.go).
  "legend.leader": { en: "L: this broker's replica is the partition's leader: it takes the writes.", zh: "L：该 broker 上的副本是分区的 leader，负责接收写入。" },
  "legend.follower": { en: "F: a follower replica: it copies the leader's log.", zh: "F：follower 副本，从 leader 复制日志。" },
  "legend.replicaRow": {
    en: "A replica's row: the partition, its role and leader epoch (e1), hw = high watermark (records below it are committed; consumers read up to it), leo = log end offset (the next offset to write), isr = the in-sync replicas (broker numbers), lso = last stable offset.",
    zh: "副本的一行：分区、角色和 leader epoch（e1），hw = 高水位（之下的记录已提交，消费者最多读到这里），leo = 日志末端位移（下一条要写入的位移），isr = 同步副本集合（broker 编号），lso = 最后稳定位移。",
  },
  "legend.hw": { en: "Amber line in a log: the high watermark.", zh: "日志中的琥珀色竖线：高水位（hw）。" },
  "legend.lso": {
    en: "Green line and \"lso N\" beside hw: the last stable offset, when an open transaction holds it short of hw; a read_committed consumer reads only below it.",
    zh: "hw 旁的绿线和“lso N”：最后稳定位移，有未完成的事务把它压在 hw 之下时出现；read_committed 的消费者只读它之下的记录。",
  },
  "legend.group": {
    en: "Teal line at the bottom of a log: a consumer group's committed offset (where it resumes after a restart or rebalance).",
    zh: "日志底部的青色竖线：消费者组已提交的位移（重启或再均衡后从这里继续）。",
  },
  "legend.reader": {
    en: "Green line at the top of a log: a consumer's position (the record it fetches next).",
    zh: "日志顶部的绿色竖线：消费者的当前位置（下一条要拉取的记录）。",
  },
  "legend.committed": { en: "A record below the high watermark: committed.", zh: "位于高水位之下的记录：已提交。" },
  "legend.uncommitted": {
    en: "A record above the high watermark: written, not yet committed. In a sink, a stored row.",
    zh: "位于高水位之上的记录：已写入，尚未提交。在 sink 中则是一行已存储的数据。",
  },
  "legend.seq": {
    en: "\"0:3\" at a cell's top right: the idempotent producer's id (0) and the record's sequence number (3).",
    zh: "格子右上角的“0:3”：幂等生产者的 ID（0）和这条记录的序号（3）。",
  },
  "legend.control": {
    en: "An internal record: an offset commit in __consumer_offsets, or a transaction-log entry.",
    zh: "内部记录：__consumer_offsets 中的位移提交，或事务日志中的条目。",
  },
  "legend.commit": { en: "COMMIT: a transaction's commit marker.", zh: "COMMIT：事务的提交标记。" },
  "legend.abort": { en: "ABORT: a transaction's abort marker.", zh: "ABORT：事务的中止标记。" },
  "legend.aborted": { en: "Grey cell: a record of an aborted transaction; read_committed skips it.", zh: "灰色格子：被中止事务的记录，read_committed 会跳过它。" },
  "legend.reordered": {
    en: "Pink outline: a record that landed behind a later send with the same key (reordered).",
    zh: "粉色描边：落在同一键后发消息之后的记录（顺序被打乱）。",
  },
  "legend.truncated": {
    en: "Struck out in red after a log's end: records a truncation just cut from that replica.",
    zh: "日志末尾之后被红线划掉的格子：该副本刚被截断掉的记录。",
  },
  "legend.dupRow": { en: "In a sink, a row outlined in orange: stored more than once (a duplicate).", zh: "sink 中橙色描边的行：被存了不止一次（重复）。" },
  "legend.refused": {
    en: "In a sink, a row struck out in orange: an insert the unique key refused as a duplicate.",
    zh: "sink 中被橙色划掉的行：被唯一键作为重复而拒绝的插入。",
  },
  "legend.dot": {
    en: "A dot on the wire: a message in flight, coloured by its API (Produce blue, Fetch violet, group and offsets green, transactions orange, controller amber, sink writes pink, a Flink job's records cyan, its checkpoint messages orchid); answers are lighter. Click it to drop it.",
    zh: "线路上的圆点：传输中的消息，颜色表示它的 API（Produce 蓝色、Fetch 紫色、消费者组与位移绿色、事务橙色、控制器琥珀色、写入 sink 粉色、Flink 作业的记录青色、检查点消息兰紫色）；应答颜色更浅。点击可丢弃它。",
  },
  "legend.bounced": {
    en: "Orange dot: a leader's answer to a batch it already had (an idempotent retry), bouncing back with the original offset.",
    zh: "橙色圆点：leader 对它已有批次（幂等重试）的应答，带着原来的位移弹回。",
  },
  "legend.link": { en: "A lane between two nodes, one per direction: click a lane to cut that direction.", zh: "两个节点之间的通道，每个方向一条：点击通道可切断该方向。" },
  "legend.cut": {
    en: "Dashed red with a cross: a cut link; nothing passes that way. Click it again to heal it.",
    zh: "带叉的红色虚线：被切断的链路，这个方向什么都过不去。再点一次可恢复。",
  },
  "legend.down": { en: "DOWN: the node has crashed. Click it to restart it.", zh: "宕机（DOWN）：节点已崩溃。点击可重启它。" },
  "legend.down.badge": { en: "DOWN", zh: "宕机" },
  "legend.paused": {
    en: "PAUSED: the process is stopped, like a long GC pause: what it receives waits, in order, until it resumes.",
    zh: "已暂停（PAUSED）：进程被暂停，如同一次很长的 GC 停顿：它收到的消息按顺序等待，直到恢复。",
  },
  "legend.paused.badge": { en: "PAUSED", zh: "已暂停" },
  "legend.blocked": {
    en: "BLOCKED on a producer: its send() waits for buffer.memory (at most max.block.ms).",
    zh: "生产者上的“阻塞”（BLOCKED）：它的 send() 正在等待 buffer.memory（最多 max.block.ms）。",
  },
  "legend.blocked.badge": { en: "BLOCKED", zh: "阻塞" },
  "legend.fenced": {
    en: "FENCED on a broker: the controller fenced it (no heartbeat within broker.session.timeout.ms); it is up but may still believe it leads what the controller moved away.",
    zh: "broker 上的“已隔离”（FENCED）：控制器已隔离它（broker.session.timeout.ms 内没有心跳）；它还在运行，却可能仍以为自己领导着已被控制器移走的分区。",
  },
  "legend.fenced.badge": { en: "FENCED", zh: "已隔离" },
  "legend.txnRow": {
    en: "\"txn ID State eN\" on a broker: a transactional id it coordinates, the transaction's state and the producer epoch.",
    zh: "broker 上的“txn ID 状态 eN”：它作为协调者管理的事务 ID、事务状态和生产者 epoch。",
  },
  "legend.kinds": {
    en: "Box borders by kind: producer blue, controller amber, broker violet, consumer green, Kafka Streams lime, sink pink, Flink job orchid.",
    zh: "方框边框颜色表示节点类型：生产者蓝色、控制器琥珀色、broker 紫色、消费者绿色、Kafka Streams 青柠色、sink 粉色、Flink 作业兰紫色。",
  },
  "legend.streams": {
    en: "A lime box: a Kafka Streams application: its guarantee, its thread's state and, under exactly_once_v2, its transaction.",
    zh: "青柠色的框：Kafka Streams 应用，显示它的处理保证、线程状态，以及 exactly_once_v2 下的事务。",
  },
  "legend.job": {
    en: "An orchid box: a Flink job, its job manager and its subtasks (sources, operators, sinks) as small boxes, its latest completed checkpoint and the one pending (how many tasks acknowledged it) or the last one aborted. Each subtask's box says what it holds: a source its offsets (orders-0@4), a count or sum its totals per key (region-0=6), an EXACTLY_ONCE sink its transactions (open, pre-committed, committing); dimmed under them, as room allows, what the latest completed checkpoint holds of it (ckpt 2:), the state a failover goes back to. Click a subtask to fail it (a task failure: its region restarts from the latest completed checkpoint), the job's frame to crash the whole job. Red: a failed subtask waiting for its restart; yellow: one aligning barriers (a bar on its input side) or waiting for its sink's flush.",
    zh: "兰紫色的框：Flink 作业，小方框是它的 JobManager 和各个子任务（源、算子、sink），并显示最近完成的检查点和进行中的检查点（已有几个任务确认）或最近一次中止的检查点。每个子任务的小方框写着它持有的状态：源的位移，计数或求和算子每个键的总数，EXACTLY_ONCE sink 的事务（已开启、已预提交、提交中）；在空间允许时，下方以暗色显示最近完成的检查点里它的快照（检查点 2：），即故障转移后回到的状态。点击子任务可让它失败（任务失败：它所在的区域从最近完成的检查点重启），点击作业的外框可让整个作业崩溃。红色：失败、等待重启的子任务；黄色：正在对齐屏障（输入一侧有一道竖条）或等待 sink 刷写的子任务。",
  },
  "legend.barrier": {
    en: "A bar on the wire: a checkpoint barrier, travelling with the records from a source to the operators and sinks.",
    zh: "线路上的竖条：检查点屏障，随记录一起从源流向算子和 sink。",
  },
  "legend.hiddenRows": {
    en: "\"+N follower rows\" / \"…N\": replica rows or older records left out when the canvas is too small (internal topics' followers first; leaders stay).",
    zh: "“+N 行副本未显示” / “…N”：画布太小时省略的副本行或较早的记录（先省略内部主题的跟随者；领导者始终保留）。",
  },
  "legend.highlight": {
    en: "Bright outline: what the current caption, or the message selected in the ledger, is about.",
    zh: "醒目的描边：当前解说或账本中选中的消息所涉及的节点。",
  },

  // Punctuation between the page's words and the core's text: Chinese uses full-width marks.
  "sep.colon": { en: ": ", zh: "：" },
  "sep.list": { en: ", ", zh: "，" },
  // The unit in the core's timed texts ("120 ms: …", "120 毫秒：…"), which the page drops
  // beside its own time (app.js's untimed); the page itself writes ms in both languages.
  "core.ms": { en: "ms", zh: "毫秒" },

  // web/tools.js: the canvas's fault menu, the fault syntax, a scene of one's own, the
  // settings panel and share links. %s stands for a line number or a scene key.
  "tools.menuFor": { en: "Faults for", zh: "可注入的故障：" },
  "tools.menuNothing": { en: "Nothing to break here.", zh: "这里没有可注入的故障。" },
  "tools.syntax": { en: "Syntax", zh: "语法" },
  "tools.syntaxTitle": { en: "The fault box's syntax", zh: "故障输入框的语法" },
  "tools.exampleFill": { en: "Put this example in the fault box", zh: "把这个示例填入故障输入框" },
  "tools.openFile": { en: "Open a scene file", zh: "打开场景文件" },
  "tools.paste": { en: "Paste a scene", zh: "粘贴场景" },
  "tools.share": { en: "Copy link", zh: "复制链接" },
  "tools.diagram": { en: "Save diagram (SVG)", zh: "保存时空图（SVG）" },
  "tools.saveRun": { en: "Save run (JSON)", zh: "保存运行（JSON）" },
  "tools.png": { en: "Save picture (PNG)", zh: "保存图片（PNG）" },
  "tools.pngHint": {
    en: "The canvas at this moment as a 1920×1080 picture, for slides",
    zh: "把此刻的画布保存为 1920×1080 的图片，用于幻灯片",
  },
  "tools.pngFailed": { en: "The picture could not be made: the canvas did not draw it.", zh: "无法生成图片：画布没有绘制它。" },
  "tools.saveRunHint": {
    en: "The run so far as JSON: the scene, its link, the outcome, every trace line and protocol point",
    zh: "把到目前为止的运行保存为 JSON：场景、链接、结果、每一行轨迹和每个协议点",
  },
  "tools.diagramHint": {
    en: "The run so far as a space-time diagram: one line per node, one arrow per message; the highlighted message stands out",
    zh: "把到目前为止的运行保存为时空图：每个节点一条线，每条消息一个箭头；高亮的消息突出显示",
  },
  "tools.shareLabel": { en: "Link to this run", zh: "本次运行的链接" },
  "tools.copied": { en: "Link copied: it opens this scene, its faults and settings, at this moment.", zh: "链接已复制：打开它即可回到这个场景、这些故障和设置，以及此刻的时间。" },
  "tools.copyByHand": { en: "Copy the link from the box (Ctrl+C).", zh: "请从框中复制链接（Ctrl+C）。" },
  "tools.dropHere": { en: "Drop a scene file (.yaml) to open it", zh: "把场景文件（.yaml）拖放到这里即可打开" },
  "tools.dropOne": { en: "Drop one scene file (.yaml or .yml).", zh: "请拖放一个场景文件（.yaml 或 .yml）。" },
  "tools.pasteTitle": { en: "Paste a scene (YAML)", zh: "粘贴场景（YAML）" },
  "tools.pasteHint": { en: "The same format as the files in scenes/ (see scenes/README.md).", zh: "格式与 scenes/ 中的文件相同（见 scenes/README.md）。" },
  "tools.load": { en: "Load", zh: "加载" },
  "tools.cancel": { en: "Cancel", zh: "取消" },
  "tools.loadedOwn": { en: "Your scene is loaded:", zh: "你的场景已加载：" },
  "tools.settings": { en: "Settings", zh: "设置" },
  "tools.noSettings": { en: "This scene has no settings to toggle.", zh: "这个场景没有可切换的设置。" },
  "tools.changed": { en: "changed", zh: "已改" },
  "tools.reset": { en: "Reset", zh: "还原" },
  "tools.resetAll": { en: "Reset all", zh: "全部还原" },
  "tools.seed": { en: "Seed", zh: "随机种子" },
  "tools.seedOfScene": { en: "the scene's", zh: "场景自带" },
  "tools.settingsNote": {
    en: "Changing a setting runs the scene again from the start with the same faults, back to the same moment.",
    zh: "改动一项设置会带着相同的故障从头重跑这个场景，并回到同一时刻。",
  },
  "tools.badLink": { en: "This link is damaged and cannot be opened; here is the first scene instead.", zh: "这个链接已损坏，无法打开；下面改为显示第一个场景。" },
  "tools.readFailed": { en: "Could not read the file:", zh: "无法读取该文件：" },
  "tools.atLine": { en: "line %s", zh: "第 %s 行" },
  "tools.atKey": { en: "key %s", zh: "键 %s" },

  // web/explore.js: "Find a failure". {name} stands for a figure or a text. A schedule is
  // one set of faults, each at a protocol point of the run.
  "explore.title": { en: "Find a failure", zh: "寻找反例" },
  "explore.find": { en: "Find a failure", zh: "寻找反例" },
  "explore.findTitle": {
    en: "Try every fault of the scene's explore block at every protocol point of the run, and keep a run that loses or duplicates a message",
    zh: "在运行的每个协议点上逐一尝试场景允许的每种故障，找出会丢失或重复消息的运行",
  },
  "explore.note": {
    en: "Tries each fault the scene's explore block allows (by default: each node crashed for 10 s, each response dropped) at every protocol point of the run, and keeps the first schedule of each kind that loses or duplicates a message. The scene's own faults and yours are left out: it looks for its own.",
    zh: "在运行的每个协议点上逐一尝试场景 explore 块允许的每种故障（默认：让每个节点崩溃 10 秒、丢弃每个响应），每种结果留下最先找到的那组故障。场景自带的故障和你注入的故障都不参与：它自己找。",
  },
  "explore.stop": { en: "Stop", zh: "停止" },
  "explore.loading": { en: "Loading the search…", zh: "正在加载搜索程序…" },
  "explore.searching": { en: "Searching…", zh: "正在搜索…" },
  "explore.running": {
    en: "Searching: {tried} schedules tried of at most {total}, {pruned} skipped, {found} found something · {secs} s",
    zh: "正在搜索：已尝试 {tried} 组故障（最多 {total} 组），跳过 {pruned} 组，{found} 组出了问题 · {secs} 秒",
  },
  "explore.done": {
    en: "Done in {secs} s: every schedule tried ({tried} schedules, {pruned} skipped); {found} found something.",
    zh: "搜索完成，用时 {secs} 秒：每组故障都试过了（{tried} 组，跳过 {pruned} 组）；{found} 组出了问题。",
  },
  "explore.budget": {
    en: "Stopped at the explore block's budget after {secs} s: {tried} schedules tried ({pruned} skipped); {found} found something.",
    zh: "达到 explore 块的预算上限，用时 {secs} 秒：已尝试 {tried} 组故障（跳过 {pruned} 组）；{found} 组出了问题。",
  },
  "explore.stopped": {
    en: "Stopped after {secs} s: {tried} schedules tried ({pruned} skipped); {found} found something.",
    zh: "已停止，用时 {secs} 秒：已尝试 {tried} 组故障（跳过 {pruned} 组）；{found} 组出了问题。",
  },
  "explore.scope": { en: "Runs of “{title}” that go wrong, one of each kind:", zh: "「{title}」出问题的运行，每种结果一例：" },
  "explore.noneYet": { en: "Nothing found yet.", zh: "暂时还没有找到。" },
  "explore.nothing": {
    en: "No schedule lost or duplicated a message: the claim ({claim}) holds against these faults.",
    zh: "没有哪组故障丢失或重复了消息：面对这些故障，场景的保证（{claim}）成立。",
  },
  "explore.breaks": { en: "breaks the claim ({claim})", zh: "打破了场景的保证（{claim}）" },
  "explore.admits": { en: "the claim ({claim}) allows it", zh: "场景的保证（{claim}）允许这种结果" },
  "explore.loses": { en: "loses {n} message", zh: "丢失 {n} 条消息" },
  "explore.losesMany": { en: "loses {n} messages", zh: "丢失 {n} 条消息" },
  "explore.duplicates": { en: "duplicates {n} message", zh: "重复 {n} 条消息" },
  "explore.duplicatesMany": { en: "duplicates {n} messages", zh: "重复 {n} 条消息" },
  "explore.invariant": { en: "breaks an invariant: {text}", zh: "破坏了不变量：{text}" },
  "explore.oneFault": { en: "1 fault", zh: "1 个故障" },
  "explore.manyFaults": { en: "{n} faults", zh: "{n} 个故障" },
  "explore.loadTitle": { en: "Load this run into the timeline", zh: "把这次运行载入时间线" },
  "explore.loaded": {
    en: "Loaded as {file}: its faults are listed under “The scene's faults” and marked on the scrubber.",
    zh: "已作为 {file} 载入：它的故障列在“场景自带的故障”下，并标在时间轴上。",
  },
  "explore.loadedNotice": { en: "Counterexample loaded:", zh: "已载入反例：" },
  "explore.loadFailed": { en: "Could not load it: ", zh: "无法载入：" },
  "explore.save": { en: "Save as scene", zh: "另存为场景" },
  "explore.asTwin": { en: "Open as twin", zh: "作为对照打开" },
  "explore.asTwinTitle": { en: "This run beside the scene as it is, in lockstep: the differences listed", zh: "把这次运行放在原场景旁边同步运行，并列出差异" },
  "explore.saveTitle": { en: "Download this run as a scene file (YAML)", zh: "把这次运行下载为场景文件（YAML）" },
  "explore.savedChanges": {
    en: "Found with these settings changed in the page: {changes}. Set them again in Settings after opening this file.",
    zh: "搜索时页面上改过这些设置：{changes}。打开此文件后，请在“设置”中重新设置。",
  },
  "explore.noWasm": { en: "Could not load the search (explore.wasm): ", zh: "无法加载搜索程序（explore.wasm）：" },
  "explore.noWorkers": { en: "This browser cannot run the search: it needs Web Workers and WebAssembly.", zh: "这个浏览器无法运行搜索：需要 Web Worker 和 WebAssembly。" },
  "explore.failed": { en: "The search failed: ", zh: "搜索失败：" },
  "explore.badScene": { en: "This scene cannot be searched: ", zh: "无法搜索这个场景：" },
  "explore.atLine": { en: "line {n}", zh: "第 {n} 行" },
  "explore.atKey": { en: "key {key}", zh: "键 {key}" },

  // Record video (web/video.js).
  "video.button": { en: "Record video (WebM)", zh: "录制视频（WebM）" },
  "video.recordingShort": { en: "Recording…", zh: "正在录制…" },
  "video.hint": { en: "A stretch of the run at a chosen speed, recorded from the canvas as it plays", zh: "以选定的速度播放一段运行，并把画布录制下来" },
  "video.title": { en: "Record a stretch of the run", zh: "录制一段运行" },
  "video.from": { en: "From (ms)", zh: "起点（毫秒）" },
  "video.to": { en: "To (ms)", zh: "终点（毫秒）" },
  "video.speed": { en: "Speed", zh: "速度" },
  "video.record": { en: "Record", zh: "录制" },
  "video.recording": { en: "Recording {from}–{to} ms at ×{speed}: the file is saved at its end.", zh: "正在以 ×{speed} 录制 {from}–{to} 毫秒，结束时保存文件。" },
  "video.bad": { en: "Choose a stretch within the run: from 0 to {length} ms, its start before its end.", zh: "请在运行范围内选择一段：0 到 {length} 毫秒，起点在终点之前。" },
  "video.unsupported": { en: "This browser cannot record the canvas: it needs MediaRecorder with WebM.", zh: "此浏览器无法录制画布：需要支持 WebM 的 MediaRecorder。" },

  // Twin runs (web/twin.js).
  "twin.title": { en: "Twin run", zh: "对照运行" },
  "twin.with": { en: "Compare with", zh: "对照" },
  "twin.open": { en: "Open twin", zh: "打开对照" },
  "twin.close": { en: "Close twin", zh: "关闭对照" },
  "twin.preset": { en: "the scene {scene}", zh: "场景 {scene}" },
  "twin.failed": { en: "The twin could not be opened:", zh: "无法打开对照：" },
  "twin.notMade": { en: "not made:", zh: "未施加：" },
  "twin.same": { en: "So far every message has the same fate in both runs.", zh: "到目前为止，两次运行中每条消息的结局都相同。" },
  "twin.canvasTitle": { en: "Twin canvas", zh: "对照画布" },
  "twin.add": { en: "Change on B too", zh: "也在 B 上修改" },
  "twin.addTitle": { en: "Change this setting on the twin as well: B then differs from A in more than one setting", zh: "在对照运行上也修改这个设置：B 与 A 的差别就不止一个设置" },
  "twin.file": { en: "Twin from a file…", zh: "用文件作对照…" },
  "twin.fileTitle": { en: "Open a scene file of your own as the twin", zh: "打开你自己的场景文件作为对照" },

  // Offsets over time (web/chart.js).
  "chart.title": { en: "Offsets over time", zh: "偏移量随时间变化" },
  "chart.leo": { en: "log end (LEO)", zh: "日志末端（LEO）" },
  "chart.hw": { en: "high watermark (HW)", zh: "高水位（HW）" },
  "chart.lso": { en: "last stable offset (LSO)", zh: "最后稳定偏移量（LSO）" },
  "chart.committed": { en: "committed offset", zh: "已提交偏移量" },
  "chart.position": { en: "consumer position", zh: "消费者位置" },
  "chart.lag": { en: "lag", zh: "滞后" },
  "chart.fault": { en: "fault", zh: "故障" },
  "chart.leader": { en: "new leader", zh: "新 leader" },
  "chart.noLeader": { en: "no leader", zh: "无 leader" },

  // The ledger's transaction column.
  txnColumn: { en: "Transaction", zh: "事务" },
  "txn.open": { en: "open", zh: "进行中" },
  "txn.committed": { en: "committed", zh: "已提交" },
  "txn.aborted": { en: "aborted", zh: "已中止" },

  // The run as a diagram (web/spacetime.js).
  "diagramView.title": { en: "The run as a diagram", zh: "运行时空图" },
  "diagramView.hint": { en: "Time runs down; the red line is where the run stands; a click seeks there.", zh: "时间自上而下；红线是运行此刻所在的位置；点击即可跳到那里。" },
  "diagramView.background": { en: "Show background traffic (heartbeats, idle fetches)", zh: "显示后台流量（心跳、空闲拉取）" },

  // Predict, then run (web/quiz.js).
  "quiz.title": { en: "Predict, then run", zh: "先预测，再运行" },
  "quiz.ask": { en: "Pick your answers, then press Play.", zh: "先选出你的答案，再按“播放”。" },
  "quiz.locked": { en: "Your answers are locked while the run plays; they are checked at its end.", zh: "运行期间答案已锁定，运行结束时揭晓。" },
  "quiz.answer": { en: "The run:", zh: "运行结果：" },
  "quiz.right": { en: "you were right", zh: "你答对了" },
  "quiz.wrong": { en: "you said", zh: "你的答案是" },
  "quiz.noPick": { en: "no guess", zh: "未作答" },
  "quiz.notOffered": { en: "(not among the choices: faults changed the run)", zh: "（不在选项中：故障改变了这次运行）" },
  "quiz.score": { en: "{right} of {all} right. Restart to try again.", zh: "答对 {right} / {all} 题。按“重新开始”再试一次。" },
};
