package dev.lockstep.approval.handover;

import org.springframework.data.jpa.repository.JpaRepository;

public interface TaskHandoverRepository extends JpaRepository<TaskHandover, Long> {
}
