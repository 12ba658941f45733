//===- BuildExplicit.cpp - a Program as explicit-form sched IR ------------===//
#include "dialects/Sched/Transforms/EnumConversion.h"
#include "dialects/Sched/Transforms/Expand.h"

using namespace mlir;
using namespace collc::sched;

/// `algorithm` as a symbol name: anything but [A-Za-z0-9_] becomes '_'.
static std::string symbolNameFor(StringRef algorithm) {
  std::string name;
  for (char c : algorithm)
    name += isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name.empty() ? "schedule" : name;
}

FailureOr<ScheduleOp>
collc::sched::buildExplicitSchedule(OpBuilder &builder, Location loc,
                                    const Program &program, StringRef name) {
  MLIRContext *context = builder.getContext();
  auto integer = [&](int64_t value) -> Attribute {
    return builder.getI64IntegerAttr(value);
  };
  auto buffer = [&](Buffer b) {
    return BufferKindAttr::get(context, toBufferKind(b));
  };
  bool rooted = program.collective == Collective::Broadcast ||
                program.collective == Collective::Reduce ||
                program.collective == Collective::Scatter ||
                program.collective == Collective::Gather ||
                program.collective == Collective::SendRecv;

  // Check first, so that a failure leaves no partial schedule behind.
  for (auto [rankId, rank] : llvm::enumerate(program.ranks))
    for (auto [channelId, channel] : llvm::enumerate(rank.channels))
      for (auto [index, in] : llvm::enumerate(channel.instructions))
        if (std::string rule = checkRangeCounts(in); !rule.empty())
          return emitError(loc)
                 << "instruction " << index << " of rank " << rankId
                 << ", channel " << channelId << ": " << rule;

  // send_recv: the single pair as root and peer, any other permutation as
  // a send_to table.
  bool sendRecv = program.collective == Collective::SendRecv;
  bool pair = sendRecv && program.root >= 0 && program.peer >= 0;
  DenseI64ArrayAttr sendTo;
  if (sendRecv && !pair)
    sendTo = builder.getDenseI64ArrayAttr(llvm::to_vector(
        llvm::map_range(program.sendTo, [](int32_t v) { return int64_t(v); })));

  OpBuilder::InsertionGuard guard(builder);
  auto schedule = builder.create<ScheduleOp>(
      loc,
      builder.getStringAttr(name.empty() ? symbolNameFor(program.algorithm)
                                         : name.str()),
      CollectiveKindAttr::get(context, toCollectiveKind(program.collective)),
      builder.getStringAttr(program.algorithm),
      builder.getSI32IntegerAttr(program.numRanks),
      builder.getSI32IntegerAttr(program.chunksPerPart), DictionaryAttr(),
      rooted && (!sendRecv || pair) ? integer(program.root) : Attribute(),
      pair ? integer(program.peer) : Attribute(),
      program.buffers.scratchChunks ? integer(program.buffers.scratchChunks)
                                    : Attribute(),
      program.sendCounts.empty()
          ? DenseI64ArrayAttr()
          : builder.getDenseI64ArrayAttr(program.sendCounts),
      sendTo, StringAttr());
  builder.setInsertionPointToEnd(&schedule.getBody().emplaceBlock());

  for (auto [rankId, rank] : llvm::enumerate(program.ranks)) {
    if (rank.channels.empty())
      continue;
    OpBuilder::InsertionGuard rankGuard(builder);
    auto rankOp =
        builder.create<RankOp>(loc, builder.getSI32IntegerAttr(rankId));
    builder.setInsertionPointToEnd(&rankOp.getBody().emplaceBlock());
    for (auto [channelId, channel] : llvm::enumerate(rank.channels)) {
      OpBuilder::InsertionGuard channelGuard(builder);
      auto channelOp =
          builder.create<ChannelOp>(loc, builder.getSI32IntegerAttr(channelId));
      builder.setInsertionPointToEnd(&channelOp.getBody().emplaceBlock());
      for (const Instruction &in : channel.instructions) {
        uint32_t chunks = chunkCount(in);
        uint32_t fanin = reduceFanin(in);
        Attribute count = chunks == 1 ? Attribute() : integer(chunks);
        Attribute step = in.step == 0 ? Attribute() : integer(in.step);
        ArrayAttr after;
        if (in.depCount) {
          SmallVector<Attribute> dependencies;
          for (uint32_t d = 0; d < in.depCount; ++d) {
            const Dependency &dependency = rank.dependencies[in.depBegin + d];
            dependencies.push_back(DependencyAttr::get(
                context, dependency.channel, integer(dependency.instruction)));
          }
          after = builder.getArrayAttr(dependencies);
        }
        Attribute from = integer(in.recvPeer), to = integer(in.sendPeer);
        BufferKindAttr src = buffer(in.src.buffer), dst = buffer(in.dst.buffer);
        Attribute srcIndex = integer(in.src.index),
                  dstIndex = integer(in.dst.index);
        switch (in.opcode) {
        case Opcode::Send:
          builder.create<SendOp>(loc, to, src, srcIndex, count, step, after);
          break;
        case Opcode::Recv:
          builder.create<RecvOp>(loc, from, dst, dstIndex, count, step, after);
          break;
        case Opcode::Copy:
          builder.create<CopyOp>(loc, src, srcIndex, dst, dstIndex, count, step,
                                 after);
          break;
        case Opcode::Reduce:
          builder.create<ReduceOp>(loc, src, srcIndex, dst, dstIndex, count,
                                   fanin == 1 ? Attribute() : integer(fanin),
                                   step, after);
          break;
        case Opcode::RecvReduceSend:
          builder.create<RecvReduceSendOp>(loc, from, to, src, srcIndex, count,
                                           step, after);
          break;
        case Opcode::RecvCopySend:
          builder.create<RecvCopySendOp>(loc, from, to, dst, dstIndex, count,
                                         step, after);
          break;
        case Opcode::RecvReduceCopy:
          builder.create<RecvReduceCopyOp>(loc, from, src, srcIndex, dst,
                                           dstIndex, count, step, after);
          break;
        case Opcode::RecvReduceCopySend:
          builder.create<RecvReduceCopySendOp>(
              loc, from, to, src, srcIndex, dst, dstIndex, count, step, after);
          break;
        }
      }
    }
  }
  return schedule;
}
