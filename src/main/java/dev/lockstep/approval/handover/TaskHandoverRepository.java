package dev.lockstep.approval;

import org.springframework.data.jpa.repository.JpaRepository;

public interface TaskHandoverRepository extends JpaRepository<TaskHandover, Long> {
}
